// want: TS2741
// edit_file requires edits.
await tools.edit_file({ path: "/a" });
