// tools: shop.json
const orders = await tools.list_orders({});
const chart = await tools.render_chart({ title: "Totals", values: orders.map((o) => o.total) });
console.log("chart at", chart.path);
return { bars: orders.length };
