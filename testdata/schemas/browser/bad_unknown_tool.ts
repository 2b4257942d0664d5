// want: TS2551
await tools.browser_navigte({ url: "https://example.com" });
