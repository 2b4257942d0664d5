// want: TS2322
// head is a number, not a string.
await tools.read_text_file({ path: "/a", head: "10" });
