// tools: shop.json
const [order, customer] = await Promise.all([tools.get_order({ id: "A1" }), tools.get_customer({ id: "c-ada" })]);
return { order: { id: order.id, lines: order.items }, customer: { name: customer.name, flags: { gold: customer.tier === "gold", notes: [] } } };
