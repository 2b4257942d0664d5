// tools: workspace
const hits = await tools.grep({ pattern: "TODO", glob: "**/*.ts" });
const re = /TODO: (.+)$/;
return hits.matches.map((m) => ({ file: m.path, line: m.line, what: re.exec(m.text)?.[1] ?? m.text }));
