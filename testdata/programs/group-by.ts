// tools: shop.json
type Order = { id: string; customer: string; status: string; total: number };
const orders: Order[] = await tools.list_orders({});
const byStatus: Record<string, { n: number; total: number }> = {};
for (const o of orders) {
  const g = (byStatus[o.status] ??= { n: 0, total: 0 });
  g.n++;
  g.total += o.total;
}
return byStatus;
