// tools: workspace
// A 30-second tour: find the notes, read them in parallel, count open TODOs.
const files: string[] = await tools.glob({ pattern: "notes/*.md" });
const reads = await Promise.all(files.map((path) => tools.read_file({ path })));
const todos = reads.flatMap((r) => (r.text ?? "").split("\n").filter((line) => line.includes("TODO")));
console.log(`${files.length} notes, ${todos.length} open TODOs`);
return todos.map((t) => t.replace(/^- TODO: /, ""));
