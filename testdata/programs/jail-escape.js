// tools: workspace
for (const path of ["../../go.mod", "/etc/hostname", "notes/../../README.md"]) {
  try {
    await tools.read_file({ path });
    console.log("read", path);
  } catch (e) {
    console.log(e.code, e.message);
  }
}
