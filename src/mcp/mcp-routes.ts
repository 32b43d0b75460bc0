import { z } from 'zod';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CHAT_OFF } from '../chat/chat-off.js';
import { LeoError } from '../core/leo-error.js';
import { LEO_VERSION } from '../core/version.js';
import { Access } from '../http/access.js';
import { selfValidated } from '../http/validate.js';
import type { chatTools } from './chat-tools.js';
import { HeldCalls } from './held-calls.js';
import { CallerParams, toolCaller, type CallerLookup, type ToolCaller } from './tool-caller.js';

type Tools = ReturnType<typeof chatTools>;

/** The endpoint speaks JSON-RPC 2.0 (MCP Streamable HTTP, JSON responses): described as such, not tool by tool. */
const JsonRpcMessage = z.looseObject({ jsonrpc: z.literal('2.0') });
type ToolRun = (c: ToolCaller, a: unknown, abandoned: AbortSignal) => unknown;

const importSdk = () =>
  Promise.all([
    import('@modelcontextprotocol/sdk/server/mcp.js'),
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
  ]);
type Sdk = Awaited<ReturnType<typeof importSdk>>;
/**
 * The SDK's server side, loaded at the first MCP call: about 240 modules (its JSON-schema tooling) that a daemon whose
 * agents never call a tool, and every CLI command that builds the route table, need not load.
 */
let sdk: Promise<Sdk> | undefined;

/** One MCP server per request (stateless Streamable HTTP): the caller's identity comes from the path and headers. */
function buildServer([{ McpServer }]: Sdk, tools: Tools, caller: ToolCaller, enabled: () => boolean): McpServer {
  const server = new McpServer({ name: 'leo', version: LEO_VERSION });
  // The SDK types each callback against its own shape; over a table of tools one loose signature is enough.
  const register = server.registerTool.bind(server) as unknown as (
    name: string,
    config: { description: string; inputSchema: object },
    cb: (args: unknown, extra: { signal: AbortSignal }) => Promise<unknown>,
  ) => void;
  for (const [name, tool] of Object.entries(tools)) {
    // extra.signal aborts when the request is cancelled or its HTTP request closes (the transport closes with it).
    register(name, { description: tool.description, inputSchema: tool.input }, async (args, extra) => {
      // The server and its tool list stay up, so the agent reads why in the tool result instead of a dead server.
      if (!enabled()) return { isError: true, content: [{ type: 'text' as const, text: CHAT_OFF }] };
      try {
        const result = await (tool.run as ToolRun)(caller, args, extra.signal);
        return {
          content: [{ type: 'text' as const, text: JSON.stringify(result) }],
          structuredContent: result as Record<string, unknown>,
        };
      } catch (err) {
        // A refusal the caller can act on reads as the tool's answer; a fault of Leo's stays a JSON-RPC error.
        if (err instanceof LeoError && err.statusCode < 500)
          return { isError: true, content: [{ type: 'text' as const, text: err.message }] };
        throw err;
      }
    });
  }
  return server;
}

/**
 * Leo's MCP endpoint for agents: /api/agent/{name}/mcp, Streamable HTTP, agent token on TCP. A headless task run
 * names itself with X-Leo-Task / X-Leo-Run-Id so its posts become task cards; a leo_dispatch subagent is refused.
 */
export const mcpRoutes: FastifyPluginAsync<{ tools: Tools; lookup: CallerLookup; enabled(): boolean }> = async (
  app,
  { tools, lookup, enabled },
) => {
  const held = new HeldCalls();
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    // First, so everything after it (holding the call, hooking the socket's close) runs in one turn, as before.
    const loaded = await (sdk ??= importSdk());
    const caller = toolCaller(req, lookup, 'mcp');
    held.cancelNamed(caller, req.body);
    const server = buildServer(loaded, tools, caller, enabled);
    const [, { StreamableHTTPServerTransport }] = loaded;
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    // Closing the transport aborts its calls' signals, which is how a blocked ask learns its caller has gone.
    const release = held.hold(caller, req.body, () => {
      // Cancelled: no JSON-RPC response is due (MCP), so the HTTP request ends empty, as for a notification.
      if (!reply.raw.headersSent) reply.raw.writeHead(202).end();
      void transport.close();
    });
    reply.raw.on('close', () => {
      release();
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  };
  const opts = { config: { access: Access.agent } };
  const rpc = {
    ...opts,
    schema: { params: CallerParams, body: JsonRpcMessage, response: { 200: JsonRpcMessage } },
    // The SDK answers a malformed message in JSON-RPC, as an MCP client expects; toolCaller checks the path.
    validatorCompiler: selfValidated,
  };
  app.post('/api/agent/:name/mcp', rpc, handler);
  app.get('/api/agent/:name/mcp', opts, handler);
  app.delete('/api/agent/:name/mcp', opts, handler);
};
