// tools: shop.json
const order = await tools.get_order({ id: "A3" });
console.log(order);
console.log("items", order.items, "count", order.items.length);
console.log(new Map([["a", 1], ["b", { deep: { deeper: { deepest: { gone: true } } } }]]));
console.log(new Set([1, "two"]), [undefined, null, NaN, -0, 1e21], "str", { s: "quoted" });
console.log(new Error("not thrown").message, typeof order.total);
