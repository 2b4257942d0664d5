const tables = await tools.list_tables({});
const out: Record<string, number> = {};
for (const t of tables.result) {
  const info = await tools.describe_table({ table_name: t });
  const pk = info.columns.filter((c) => c.primary_key).map((c) => c.name);
  for (const fk of info.foreign_keys ?? []) console.log(`${t}.${fk.column} -> ${fk.references.table}.${fk.references.column}`);
  out[t] = info.row_count ?? -1;
  console.log(t, pk);
}
const rows = await tools.read_query({ query: "select * from t where id = ?", params: [1, "x", null, true], limit: null });
await tools.write_query({ query: "delete from t", params: null });
return { out, cols: rows.columns.map((c) => c.name), first: rows.rows[0] };
