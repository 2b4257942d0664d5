// tools: workspace
const order = [];
const t = setTimeout(() => order.push("cancelled"), 5);
clearTimeout(t);
await new Promise((resolve) => setTimeout(() => { order.push("timer"); resolve(); }, 10));
order.push("after");
return order;
