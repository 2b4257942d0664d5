// tools: shop.json
const found: string[] = [];
for (const id of ["A1", "Z9", "A3"]) {
  try {
    const order = await tools.get_order({ id });
    found.push(order.id);
  } catch (err) {
    if (err instanceof ToolCallError) {
      console.log(`skip ${id}: ${err.toolName} ${err.code}: ${err.message}`);
    } else {
      throw err;
    }
  }
}
return found;
