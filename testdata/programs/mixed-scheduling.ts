// tools: shop.json
// Safe lookups overlap; the refund (mutating) runs alone, in submission order.
const [a, b, refund, c] = await Promise.all([
  tools.slow_lookup({ key: "a" }),
  tools.slow_lookup({ key: "b" }),
  tools.refund({ id: "A1", reason: "customer request" }),
  tools.slow_lookup({ key: "c" }),
]);
return { keys: [a.key, b.key, c.key], refunded: refund.refunded };
