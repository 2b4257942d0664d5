// tools: workspace
console.log("waiting for something that never happens");
await new Promise(() => {});
return "unreachable";
