// tools: shop.json
tools.get_order({ id: "missing" }); // dropped: nobody awaits it
await tools.slow_lookup({ key: "wait" });
return "finished";
