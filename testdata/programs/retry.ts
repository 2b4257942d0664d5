// tools: shop.json
async function withRetry<T>(f: () => Promise<T>, attempts: number): Promise<T | undefined> {
  for (let i = 1; i <= attempts; i++) {
    try {
      return await f();
    } catch (e) {
      console.log(`attempt ${i} failed: ${(e as ToolCallError).code}`);
    }
  }
  return undefined;
}
const r = await withRetry(() => tools.refund({ id: "A2", reason: "damaged" }), 2);
return r ?? "gave up";
