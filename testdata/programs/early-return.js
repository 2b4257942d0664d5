// tools: shop.json
const open = await tools.list_orders({ status: "refunded" });
if (open.length === 0) {
  return "nothing refunded";
}
console.log("unreachable");
return open;
