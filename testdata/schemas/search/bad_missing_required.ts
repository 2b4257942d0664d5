// want: TS2741
await tools["tavily-extract"]({ extract_depth: "basic" });
