// want: TS2322
// params hold scalars only.
await tools.read_query({ query: "select 1", params: [{ id: 1 }] });
