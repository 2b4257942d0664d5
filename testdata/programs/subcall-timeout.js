// tools: shop.json
try {
  await tools.flaky_lookup({ key: "k" });
  return "unexpected";
} catch (e) {
  return `${e.code}: ${e.message}`;
}
