// tools: shop.json
const ids = ["A1", "A2", "A3"];
const orders = await Promise.all(ids.map((id) => tools.get_order({ id })));
const skus = new Set<string>();
for (const o of orders) for (const item of o.items ?? []) skus.add(item.sku ?? "?");
console.log("skus:", [...skus].sort());
return orders.map((o) => `${o.id}=${o.total}`).join(", ");
