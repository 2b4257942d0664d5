// want: TS2741
// a relation needs relationType.
await tools.create_relations({ relations: [{ from: "a", to: "b" }] });
