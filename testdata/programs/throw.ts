// tools: shop.json
const order = await tools.get_order({ id: "A2" });
console.log("status", order.status);
if (order.status !== "open") {
  throw new Error(`order ${order.id} is ${order.status}, expected open`);
}
