// want: TS2353
// The parameters are closed: no unknown properties.
await tools.browser_navigate({ url: "https://example.com", waitUntil: "load" });
