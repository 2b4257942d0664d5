// want: TS2741
await tools.describe_table({});
