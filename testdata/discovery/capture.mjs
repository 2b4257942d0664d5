#!/usr/bin/env node
// capture.mjs — build testdata/discovery/tools.json by starting public MCP
// servers from the npm registry over stdio and calling tools/list.
//
// Usage (in a scratch directory OUTSIDE the repo, see README.md; the script is
// copied there so that its imports resolve against the scratch node_modules):
//   npm install @modelcontextprotocol/sdk@1.32.2
//   cp <repo>/testdata/discovery/capture.mjs . && node capture.mjs \
//     [--prefix-root DIR] [--latest] [--out tools.json] [--only pkg,...] [--timeout-ms N]
//
// Without --prefix-root every server runs as `npx -y <package>@<version>`, with
// the version pinned below (--latest: the registry's current version instead).
// With --prefix-root DIR each package is expected to be installed already in
// DIR/<slugified package>/node_modules (as `npm install <package>` leaves it),
// and its bin is run directly with node; the version is read from the
// installed package.json.
//
// Tokens in `env` are dummies: they only let a server start. tools/list never
// needs a real credential for the servers listed here.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { z } from "zod";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const DUMMY = "dummy-token-for-tools-list-only";
// A fixed path, so descriptions that echo it (filesystem's allowed directory)
// come out the same on every run.
const scratch = path.join(os.tmpdir(), "mcp-capture");
fs.rmSync(scratch, { recursive: true, force: true });
fs.mkdirSync(scratch, { recursive: true });
// server-gdrive refuses to start without a saved OAuth credentials file.
const gdriveCreds = path.join(scratch, "gdrive-credentials.json");
fs.writeFileSync(gdriveCreds, JSON.stringify({ access_token: DUMMY, token_type: "Bearer" }));

// slug: short server name used to prefix tool names that collide across servers.
export const SERVERS = [
  { pkg: "@modelcontextprotocol/server-filesystem", version: "2026.8.31", slug: "fs", args: [scratch] },
  { pkg: "@modelcontextprotocol/server-memory", version: "2026.8.31", slug: "memory", env: { MEMORY_FILE_PATH: path.join(scratch, "memory.json") } },
  { pkg: "@modelcontextprotocol/server-everything", version: "2026.8.31", slug: "everything", args: ["stdio"] },
  { pkg: "@modelcontextprotocol/server-sequential-thinking", version: "2026.8.31", slug: "thinking" },
  { pkg: "@modelcontextprotocol/server-github", version: "2025.4.8", slug: "github", env: { GITHUB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { pkg: "@modelcontextprotocol/server-gitlab", version: "2025.4.25", slug: "gitlab", env: { GITLAB_PERSONAL_ACCESS_TOKEN: DUMMY } },
  { pkg: "@modelcontextprotocol/server-slack", version: "2025.4.25", slug: "slack", env: { SLACK_BOT_TOKEN: "xoxb-" + DUMMY, SLACK_TEAM_ID: "T00000000" } },
  { pkg: "@modelcontextprotocol/server-google-maps", version: "0.6.2", slug: "gmaps", env: { GOOGLE_MAPS_API_KEY: DUMMY } },
  { pkg: "@modelcontextprotocol/server-brave-search", version: "0.6.2", slug: "brave", env: { BRAVE_API_KEY: DUMMY } },
  { pkg: "@modelcontextprotocol/server-puppeteer", version: "2025.5.12", slug: "puppeteer" },
  { pkg: "@modelcontextprotocol/server-postgres", version: "0.6.2", slug: "postgres", args: ["postgresql://user:pass@127.0.0.1:1/db"] },
  { pkg: "@modelcontextprotocol/server-aws-kb-retrieval", version: "0.6.2", slug: "awskb", env: { AWS_ACCESS_KEY_ID: DUMMY, AWS_SECRET_ACCESS_KEY: DUMMY, AWS_REGION: "us-east-1" } },
  { pkg: "@modelcontextprotocol/server-gdrive", version: "2025.1.14", slug: "gdrive", env: { GDRIVE_CREDENTIALS_PATH: gdriveCreds } },
  { pkg: "@modelcontextprotocol/server-everart", version: "0.6.2", slug: "everart", env: { EVERART_API_KEY: DUMMY } },
  { pkg: "@notionhq/notion-mcp-server", version: "2.5.2", slug: "notion", env: { NOTION_TOKEN: DUMMY } },
  { pkg: "@playwright/mcp", version: "0.0.83", slug: "playwright" },
  { pkg: "@upstash/context7-mcp", version: "4.1.1", slug: "context7" },
  { pkg: "firecrawl-mcp", version: "3.22.2", slug: "firecrawl", env: { FIRECRAWL_API_KEY: "fc-" + DUMMY } },
  { pkg: "@supabase/mcp-server-supabase", version: "0.13.0", slug: "supabase", args: ["--access-token", DUMMY, "--features=account,database,debugging,development,functions,branching,storage"] }, // docs group left out: it fetches a GraphQL schema from supabase.com before listing
  { pkg: "mcp-server-kubernetes", version: "4.1.7", slug: "k8s" },
  { pkg: "@sentry/mcp-server", version: "0.36.0", slug: "sentry", args: ["--access-token=" + DUMMY] },
  { pkg: "@hubspot/mcp-server", version: "0.4.0", slug: "hubspot", env: { PRIVATE_APP_ACCESS_TOKEN: DUMMY } },
  { pkg: "exa-mcp-server", version: "3.4.1", slug: "exa", env: { EXA_API_KEY: DUMMY } },
  { pkg: "tavily-mcp", version: "0.2.22", slug: "tavily", env: { TAVILY_API_KEY: "tvly-" + DUMMY } },
  { pkg: "@browserbasehq/mcp-server-browserbase", version: "2.4.3", slug: "browserbase", env: { BROWSERBASE_API_KEY: DUMMY, BROWSERBASE_PROJECT_ID: DUMMY, GEMINI_API_KEY: DUMMY } },
  { pkg: "airtable-mcp-server", version: "1.14.0", slug: "airtable", env: { AIRTABLE_API_KEY: DUMMY } },
  { pkg: "@shopify/dev-mcp", version: "1.16.0", slug: "shopify" },
  { pkg: "mongodb-mcp-server", version: "3.0.4", slug: "mongodb", env: { MDB_MCP_CONNECTION_STRING: "mongodb://127.0.0.1:1", MDB_MCP_TELEMETRY: "disabled" } },
  { pkg: "@elastic/mcp-server-elasticsearch", version: "0.3.1", slug: "elastic", args: ["stdio"], env: { ES_URL: "http://127.0.0.1:1", ES_API_KEY: DUMMY } },
  { pkg: "@executeautomation/playwright-mcp-server", version: "1.0.12", slug: "eaplaywright" },
  { pkg: "@wonderwhy-er/desktop-commander", version: "0.2.52", slug: "desktop" },
  { pkg: "@kimtaeyoon83/mcp-server-youtube-transcript", version: "0.1.1", slug: "youtube" },
  { pkg: "figma-developer-mcp", version: "0.13.2", slug: "figma", args: ["--stdio", "--figma-api-key=" + DUMMY] },
  { pkg: "@pinecone-database/mcp", version: "0.3.0", slug: "pinecone", env: { PINECONE_API_KEY: DUMMY } },
  { pkg: "@twilio-alpha/mcp", version: "0.7.0", slug: "twilio", args: ["AC00000000000000000000000000000000/SK00000000000000000000000000000000:" + DUMMY] },
  { pkg: "@netlify/mcp", version: "1.15.1", slug: "netlify", env: { NETLIFY_PERSONAL_ACCESS_TOKEN: DUMMY } },
];

// Tried and left out (as of the capture date):
//   @modelcontextprotocol/server-redis  exits unless a Redis server answers at startup.
//   @stripe/mcp                         a stdio proxy to https://mcp.stripe.com; lists nothing offline.
//   @heroku/mcp-server@1.2.8            exits at startup: "Cannot find module
//                                       .../@modelcontextprotocol/sdk/dist/esm/server/mcp".
//   @taazkareem/clickup-mcp-server      not on the registry.

function parseArgs(argv) {
  const o = { out: "tools.json", prefixRoot: null, only: null, timeoutMs: 90000, latest: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--out") o.out = argv[++i];
    else if (a === "--prefix-root") o.prefixRoot = argv[++i];
    else if (a === "--only") o.only = new Set(argv[++i].split(","));
    else if (a === "--timeout-ms") o.timeoutMs = Number(argv[++i]);
    else if (a === "--latest") o.latest = true;
    else throw new Error("unknown argument " + a);
  }
  return o;
}

export function dirSlug(pkg) { return pkg.replace(/[@/]/g, "_"); }

function localCommand(root, s) {
  const dir = path.join(root, dirSlug(s.pkg), "node_modules", s.pkg);
  const pj = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
  let bin = pj.bin;
  if (typeof bin === "object") bin = s.bin ? bin[s.bin] : Object.values(bin)[0];
  if (!bin) throw new Error(`${s.pkg}: no bin in package.json`);
  return { command: process.execPath, args: [path.join(dir, bin), ...(s.args || [])], version: pj.version };
}

const ListResult = z.object({ tools: z.array(z.object({ name: z.string() }).passthrough()), nextCursor: z.string().optional() }).passthrough();

async function listTools(s, opt) {
  let cmd;
  if (opt.prefixRoot) cmd = localCommand(opt.prefixRoot, s);
  else {
    // Versions are pinned to what the committed tools.json was captured from;
    // --latest asks the registry for the current version instead.
    const version = opt.latest
      ? execFileSync("npm", ["view", s.pkg, "version"], { encoding: "utf8" }).trim()
      : s.version;
    cmd = { command: "npx", args: ["-y", `${s.pkg}@${version}`, ...(s.args || [])], version };
  }
  const env = { ...process.env, ...(s.env || {}) };
  const transport = new StdioClientTransport({ command: cmd.command, args: cmd.args, env, cwd: scratch, stderr: "pipe" });
  let stderr = "";
  transport.stderr?.on("data", (d) => { if (stderr.length < 4000) stderr += d; });
  const client = new Client({ name: "runcode-discovery-capture", version: "0.1.0" });
  const timer = new Promise((_, rej) => setTimeout(() => rej(new Error("timeout")), opt.timeoutMs));
  try {
    await Promise.race([client.connect(transport), timer]);
    const tools = [];
    let cursor;
    do {
      // Raw tools/list with a permissive result schema: some servers publish
      // schemas the SDK's strict ListToolsResult rejects (e.g. gitlab); we
      // record what the server actually sends.
      const req = { method: "tools/list", params: cursor ? { cursor } : {} };
      const r = await Promise.race([client.request(req, ListResult), timer]);
      tools.push(...r.tools);
      cursor = r.nextCursor;
    } while (cursor);
    const sv = client.getServerVersion();
    return { tools, version: cmd.version || sv?.version, serverInfo: sv };
  } catch (e) {
    e.message += "\n--- stderr ---\n" + stderr.slice(-1500);
    throw e;
  } finally {
    await client.close().catch(() => {});
  }
}

async function main() {
  const opt = parseArgs(process.argv.slice(2));
  const got = [];
  const failed = [];
  for (const s of SERVERS) {
    if (opt.only && !opt.only.has(s.pkg)) continue;
    try {
      const r = await listTools(s, opt);
      console.error(`ok   ${s.pkg}@${r.version}: ${r.tools.length} tools`);
      got.push({ s, ...r });
    } catch (e) {
      console.error(`FAIL ${s.pkg}: ${e.message}`);
      failed.push(s.pkg);
    }
  }
  // Unique names: a name served by more than one package gets "<slug>_" prefixed
  // on every occurrence.
  const count = new Map();
  for (const g of got) for (const t of g.tools) count.set(t.name, (count.get(t.name) || 0) + 1);
  const tools = [];
  for (const g of got) {
    for (const t of g.tools) {
      const name = count.get(t.name) > 1 ? `${g.s.slug}_${t.name}` : t.name;
      const rec = { name, description: t.description ?? "", inputSchema: t.inputSchema, source: `${g.s.pkg}@${g.version}` };
      if (name !== t.name) rec.originalName = t.name;
      tools.push(rec);
    }
  }
  const names = new Set();
  for (const t of tools) {
    if (names.has(t.name)) throw new Error("duplicate name after prefixing: " + t.name);
    names.add(t.name);
  }
  const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
  tools.sort((a, b) => cmp(a.source, b.source) || cmp(a.name, b.name));
  fs.writeFileSync(opt.out, JSON.stringify({ tools }, null, 2) + "\n");
  console.error(`wrote ${tools.length} tools from ${got.length} servers to ${opt.out}; failed: ${failed.join(", ") || "none"}`);
  fs.rmSync(scratch, { recursive: true, force: true });
  process.exit(0);
}

main().catch((e) => { console.error(e); process.exit(1); });
