// tools: shop.json
try {
  await tools.get_customer({ id: 42, extra: true });
} catch (e) {
  console.log(e.name, e.code);
  console.log(e.message);
}
