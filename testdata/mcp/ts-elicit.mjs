// Runs `runcode serve` (the command line after the script's name) under the official
// TypeScript MCP client, which declares elicitation and accepts every approval, calls
// run_code with a program whose sub-call needs approval, and prints the result text
// and the elicitation messages as JSON.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const [command, ...args] = process.argv.slice(2);
const client = new Client({ name: 'ts-elicit', version: '1.0.0' }, { capabilities: { elicitation: {} } });
const asked = [];
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  asked.push({ message: req.params.message, schema: req.params.requestedSchema });
  return { action: 'accept', content: { approve: true } };
});
await client.connect(new StdioClientTransport({ command, args, stderr: 'inherit' }));
const res = await client.callTool({
  name: 'run_code',
  arguments: {
    description: 'close an issue',
    code: `const closed = await tools.close_issue({ id: 7 });
let dropped;
try { await tools.drop_tracker({}); } catch (e) { dropped = e.code + ": " + e.message; }
return { closed, dropped };`,
  },
});
console.log(JSON.stringify({ text: res.content.map((c) => c.text).join('\n'), isError: !!res.isError, asked }));
await client.close();
