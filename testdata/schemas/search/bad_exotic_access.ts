// want: TS2339
// A name with a dash is reachable only with quotes.
await tools.tavily.search({ query: "x" });
