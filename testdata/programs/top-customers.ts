// tools: shop.json
const orders = await tools.list_orders({});
const spend = new Map<string, number>();
for (const o of orders) spend.set(o.customer, (spend.get(o.customer) ?? 0) + o.total);
const top = [...spend.entries()].sort((a, b) => b[1] - a[1]).slice(0, 2);
const profiles = await Promise.all(top.map(([id]) => tools.get_customer({ id })));
return profiles.map((p, i) => ({ name: p.name, tier: p.tier ?? "none", spent: top[i][1] }));
