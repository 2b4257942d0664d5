// tools: shop.json
enum Status { Open = "open", Shipped = "shipped" }
const shipped = await tools.list_orders({ status: Status.Open });
return shipped.map((o) => o.id);
