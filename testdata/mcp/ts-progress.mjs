// Runs `runcode serve` (the command line after the script's name) under the official
// TypeScript MCP client, calls run_code with a progressToken, and prints the result
// text and every progress notification as JSON.
//
// The notifications are taken with a notification handler of the script's own rather
// than callTool's onprogress option: the SDK runs notification handlers a microtask
// late but handles a response at once, and drops the request's progress handler with
// it, so a notification that arrives in the same read as the response (the final
// one, typically) never reaches onprogress. This handler still runs before the code
// after `await client.callTool` does.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'ts-progress', version: '1.0.0' });
const progress = [];
client.setNotificationHandler(ProgressNotificationSchema, (n) => {
  progress.push({ token: n.params.progressToken, progress: n.params.progress, message: n.params.message });
});
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
const res = await client.callTool({
  name: 'run_code',
  arguments: {
    description: 'two searches',
    code: `const a = await tools.search_issues({ q: "crash" });
console.log("found", a.length);
const b = await tools.search_issues({ q: "hang" });
return a.length + b.length;`,
  },
  _meta: { progressToken: 'ts-1' },
});
console.log(JSON.stringify({ text: res.content.map((c) => c.text).join('\n'), isError: !!res.isError, progress }));
await client.close();
