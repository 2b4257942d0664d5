// tools: shop.json
await tools.list_orders({});
