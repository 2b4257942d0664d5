await tools.browser_navigate({ url: "https://example.com" });
const snap = await tools.browser_snapshot({});
await tools.browser_click({ element: "Submit button", ref: "e12", button: "left", modifiers: ["Shift"] });
await tools.browser_fill_form({ fields: [{ name: "Email", type: "textbox", ref: "e3", value: "a@b.c" }] });
await tools.browser_drag({ startElement: "a", startRef: "e1", endElement: "b", endRef: "e2" });
await tools.browser_take_screenshot({ type: "jpeg", fullPage: true });
const tabs = await tools["browser_tabs"]({ action: "list" });
return { snap, tabs };
