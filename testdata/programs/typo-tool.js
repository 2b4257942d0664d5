// tools: shop.json
const order = await tools.get_ordr({ id: "A1" });
return order.total;
