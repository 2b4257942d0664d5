// want: TS2345
await tools.describe_table({});
