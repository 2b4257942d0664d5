// tools: shop.json
interface Order { id: string; customer: string; status: string; total: number }
const orders: Order[] = await tools.list_orders({});
const total = orders.reduce((sum: number, o: Order) => sum + o.total, 0);
return { count: orders.length, total: Math.round(total * 100) / 100 };
