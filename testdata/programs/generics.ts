// tools: shop.json
function pluck<T, K extends keyof T>(rows: T[], key: K): T[K][] {
  return rows.map((r) => r[key]);
}
const orders = await tools.list_orders({});
const ids = pluck(orders, "id");
const totals = pluck(orders, "total") as number[];
return { ids, max: Math.max(...totals) };
