// want: TS2322
const r = await tools.write_query({ query: "insert into t values (1)" });
const id: number = r.last_insert_id;
