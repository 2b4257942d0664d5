#!/usr/bin/env node
// A minimal MCP server over stdio for mcpbridge's failure tests, without any SDK.
//
//   node fake-server.js exit    writes to stderr and exits at once with status 3
//   node fake-server.js hang    reads requests and never answers (not even initialize)
//   node fake-server.js serve   answers initialize and tools/list (two pages), and
//                               tools/call for: ok (answers {"ok": true}),
//                               crash (writes "boom" to stderr and exits with status 7),
//                               garbage (answers a line that is not JSON), and
//                               change (announces a new tool list with one more tool).
"use strict";
const mode = process.argv[2] || "serve";
if (mode === "exit") {
  process.stderr.write("fake-server: cannot open the database\n");
  process.exit(3);
}
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin });
const send = (msg) => process.stdout.write(JSON.stringify(msg) + "\n");
const tool = (name, extra) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object" }, ...extra });
let pages = [
  [tool("ok", { annotations: { readOnlyHint: true } }), tool("crash")],
  [tool("garbage"), tool("change"), tool("weird name!")],
];
// FAKE_MARK names a file written when stdin ends, so tests can see the server was stopped.
rl.on("close", () => {
  if (process.env.FAKE_MARK) require("fs").writeFileSync(process.env.FAKE_MARK, "stopped\n");
  process.exit(0);
});
rl.on("line", (line) => {
  if (mode === "hang") return;
  let req;
  try { req = JSON.parse(line); } catch { return; }
  if (req.id === undefined) return; // a notification
  const reply = (result) => send({ jsonrpc: "2.0", id: req.id, result });
  switch (req.method) {
    case "initialize":
      return reply({ protocolVersion: req.params.protocolVersion, capabilities: { tools: { listChanged: true } }, serverInfo: { name: "fake", version: "1" } });
    case "tools/list": {
      const page = req.params && req.params.cursor === "2" ? 1 : 0;
      return reply(page === 0 ? { tools: pages[0], nextCursor: "2" } : { tools: pages[1] });
    }
    case "tools/call":
      switch (req.params.name) {
        case "ok":
          return reply({ content: [{ type: "text", text: JSON.stringify({ ok: true, args: req.params.arguments }) }] });
        case "crash":
          process.stderr.write("boom\n");
          process.exit(7);
        case "garbage":
          process.stdout.write("this is not json\n");
          return;
        case "change":
          pages[1] = pages[1].concat([tool("added")]);
          reply({ content: [{ type: "text", text: "changed" }] });
          return send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      }
      return send({ jsonrpc: "2.0", id: req.id, error: { code: -32602, message: "unknown tool " + req.params.name } });
    default:
      return send({ jsonrpc: "2.0", id: req.id, error: { code: -32601, message: "Method not found" } });
  }
});
