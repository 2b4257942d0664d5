// want: TS2339
const graph = await tools.read_graph({});
return graph.nodes;
