// tools: shop.json
const attempts = [
  () => tools.echo({ when: new Date(0) }),
  () => tools.echo({ n: NaN }),
  () => tools.echo(undefined),
];
for (const f of attempts) {
  try { await f(); console.log("sent"); } catch (e) { console.log(e.code, "-", e.message); }
}
