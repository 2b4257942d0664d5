// tools: shop.json
const orders = await tools.list_orders({});
const rows = orders.map((o) => `${o.id.padEnd(4)}${o.customer.padEnd(8)}${o.total.toFixed(2).padStart(8)}`);
console.log(["ID  CUSTOMER   TOTAL", ...rows].join("\n"));
