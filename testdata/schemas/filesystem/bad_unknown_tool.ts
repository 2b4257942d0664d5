// want: TS2339
await tools.delete_file({ path: "/a" });
