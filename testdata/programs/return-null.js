// tools: shop.json
return null;
