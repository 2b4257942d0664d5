// want: TS2322
await tools.browser_click({ element: "x", ref: "e1", button: "primary" });
