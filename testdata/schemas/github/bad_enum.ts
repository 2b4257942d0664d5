// want: TS2820
// state takes "OPEN" or "CLOSED".
await tools.list_issues({ owner: "o", repo: "r", state: "open" });
