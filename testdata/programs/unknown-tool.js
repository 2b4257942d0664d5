// tools: shop.json
console.log("calling a tool that does not exist");
await tools.delete_everything({});
