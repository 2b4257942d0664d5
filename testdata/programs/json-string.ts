// tools: shop.json
const raw: string = await tools["fetch-report"]({ month: "2026-10" });
const report = JSON.parse(raw) as { revenue: number; orders: number; top: string[] };
return `${report.orders} orders, revenue ${report.revenue}, best seller ${report.top[0]}`;
