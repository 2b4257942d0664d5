// want: TS2741
await tools.create_pull_request({ owner: "o", repo: "r", title: "t", head: "h" });
