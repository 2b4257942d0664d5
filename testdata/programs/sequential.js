// tools: shop.json
const seen = [];
for (const key of ["a", "b", "c"]) {
  const r = await tools.slow_lookup({ key });
  seen.push(r.key);
}
return seen.join("");
