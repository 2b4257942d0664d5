// tools: workspace
const entries = await tools.list_dir({ path: "src" });
const stats = await Promise.all(entries.map((e) => tools.stat({ path: `src/${e.name}` })));
return stats.map((s) => `${s.path} ${s.type} ${s.size}B`);
