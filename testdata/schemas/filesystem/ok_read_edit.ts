// Reads two files together, edits one, and returns a summary.
const [a, b] = await Promise.all([
  tools.read_text_file({ path: "/srv/data/a.txt", head: 10 }),
  tools.read_text_file({ path: "/srv/data/b.txt" }),
]);
const lines: number = a.content.split("\n").length + b.content.split("\n").length;
await tools.edit_file({ path: "/srv/data/a.txt", edits: [{ oldText: "x", newText: "y" }], dryRun: true });
const tree = await tools.directory_tree({ path: "/srv/data" });
const walk = (e: (typeof tree)[number]): number => 1 + (e.children ?? []).reduce((n, c) => n + walk(c), 0);
try {
  await tools.move_file({ source: "/a", destination: "/b" });
} catch (err) {
  if (err instanceof ToolCallError && err.code === "TOOL_FAILED") console.log(err.toolName, err.message);
}
return { lines, entries: tree.reduce((n, e) => n + walk(e), 0) };
