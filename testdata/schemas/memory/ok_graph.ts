await tools.create_entities({ entities: [{ name: "runcode", entityType: "project", observations: ["written in Go"] }] });
await tools.create_relations({ relations: [{ from: "runcode", to: "goja", relationType: "embeds" }] });
const graph = await tools.read_graph({});
const byType = new Map<string, number>();
for (const e of graph.entities) byType.set(e.entityType, (byType.get(e.entityType) ?? 0) + e.observations.length);
const hits = await tools.search_nodes({ query: "Go" });
return { types: [...byType], related: hits.relations.map((r) => `${r.from} -${r.relationType}-> ${r.to}`) };
