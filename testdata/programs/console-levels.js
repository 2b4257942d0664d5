// tools: workspace
console.info("info");
console.warn("warn");
console.error("error");
console.debug("debug");
console.log("log", 1, true, null, undefined);
return typeof console.table;
