import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { chatOffError } from '../chat/chat-off.js';
import { Access } from '../http/access.js';
import { ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { selfValidated } from '../http/validate.js';
import { AskResult, HistoryResult, PostResult, WithdrawResult, type chatTools } from './chat-tools.js';
import { CallerParams, toolCaller, type CallerLookup, type ToolCaller } from './tool-caller.js';

type Tools = ReturnType<typeof chatTools>;

/**
 * The agent tools as plain HTTP: POST /api/agent/{name}/chat/{post,ask,ask/withdraw,history} with the agent token.
 * Same inputs and results as the MCP tools (one definition serves both).
 */
export const agentChatRoutes: FastifyPluginAsyncZod<{
  tools: Tools;
  lookup: CallerLookup;
  enabled(): boolean;
}> = async (app, { tools, lookup, enabled }) => {
  const routes = {
    post: [tools.leo_chat_post, PostResult],
    ask: [tools.leo_chat_ask, AskResult],
    'ask/withdraw': [tools.leo_chat_ask_withdraw, WithdrawResult],
    history: [tools.leo_chat_history, HistoryResult],
  } as const;
  // Before validation, as on /api/v1/chat: while chat is off, what a call carries does not matter.
  app.addHook('onRequest', async () => {
    if (!enabled()) throw chatOffError();
  });
  for (const [action, [tool, result]] of Object.entries(routes)) {
    // Built once per route: zod compiles a schema on first use, and rebuilding it per request was a fifth of a post.
    const body = z.strictObject(tool.input);
    const route = {
      config: { access: Access.agent },
      schema: { params: CallerParams, body, response: { 200: okOf(result) } },
      // An empty body is the tool called with no arguments.
      preValidation: async (req: FastifyRequest) => {
        req.body ??= {};
      },
      // The ask tool checks its input itself (parseAskRequest), with refusals that say what an ask needs.
      ...(action === 'ask' ? { validatorCompiler: selfValidated } : {}),
    };
    app.post(`/api/agent/:name/chat/${action}`, route, async (req, reply) => {
      const caller = toolCaller(req, lookup, 'api');
      const args = req.body;
      // The response closing before it was sent means the caller hung up: a blocked ask stops waiting for it.
      const abandoned = new AbortController();
      reply.raw.once('close', () => abandoned.abort());
      return ok(
        await (tool.run as (c: ToolCaller, a: unknown, abandoned: AbortSignal) => z.output<typeof result>)(
          caller,
          args,
          abandoned.signal,
        ),
      );
    });
  }
};
