// tools: shop.json
const sent = { text: "héllo \u2028 😀", n: 1e21, small: 0.000001, list: [true, null, { k: [] }] };
const back = await tools.echo(sent);
console.log(JSON.stringify(back) === JSON.stringify(sent));
return back;
