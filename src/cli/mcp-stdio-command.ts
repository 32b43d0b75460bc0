import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { LEO_VERSION } from '../core/version.js';
import { CallerEnv } from '../wire/caller-headers.js';
import { daemonFetch } from './daemon-http.js';

/** Leo's ceiling on one tool call (leo_chat_ask waits up to 30 minutes of it). */
const TOOL_CEILING_MS = 32 * 60_000;

/**
 * `leo mcp-stdio`: Leo's agent tools for harnesses that only speak MCP over stdio. It relays tools/list and
 * tools/call to the daemon's Streamable HTTP endpoint (LEO_MCP_URL, with LEO_AGENT_TOKEN), which stays the only
 * implementation. LEO_TASK, LEO_RUN_ID and LEO_DISPATCH travel as the X-Leo-* caller headers.
 */
export async function runMcpStdio(opts: { url?: string }): Promise<void> {
  const url = opts.url ?? process.env.LEO_MCP_URL;
  const token = process.env.LEO_AGENT_TOKEN;
  if (!url || !token) {
    console.error(
      'leo mcp-stdio: LEO_MCP_URL (or --url) and LEO_AGENT_TOKEN must be set; Leo sets both for its agents',
    );
    process.exit(1);
  }
  const upstream = new Client({ name: 'leo-mcp-stdio', version: LEO_VERSION });
  await upstream.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      // The daemon answers a leo_chat_ask only when the person does: fetch's 5-minute wait for headers is too short.
      fetch: daemonFetch,
      requestInit: { headers: { authorization: `Bearer ${token}`, ...callerHeaders() } },
    }),
  );
  const server = new Server({ name: 'leo', version: LEO_VERSION }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, (req) => upstream.listTools(req.params));
  // The harness's cancel travels on (the SDK sends notifications/cancelled upstream), so a leo_chat_ask it gave up
  // on stops blocking in the daemon and a later answer is delivered as a reply.
  server.setRequestHandler(CallToolRequestSchema, (req, extra) =>
    upstream.callTool(req.params, undefined, {
      timeout: TOOL_CEILING_MS,
      resetTimeoutOnProgress: true,
      signal: extra.signal,
    }),
  );
  server.onclose = () => void upstream.close();
  await server.connect(new StdioServerTransport());
}

/** A task run or a dispatched subagent says so through its environment; the daemon decides what that allows. */
function callerHeaders(): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [header, name] of Object.entries(CallerEnv)) {
    const value = process.env[name];
    if (value) headers[header] = value;
  }
  return headers;
}
