// want: TS2345
await tools["tavily-extract"]({ extract_depth: "basic" });
