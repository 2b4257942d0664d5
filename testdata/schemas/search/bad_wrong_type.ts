// want: TS2322
await tools.brave_web_search({ query: "x", count: "5" });
