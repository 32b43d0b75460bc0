import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { AttachmentError } from '../chat/attachments/attachments.js';
import { AskError } from '../chat/asks/asks.js';
import { chatOffError } from '../chat/chat-off.js';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { parseInput } from '../http/validate.js';
import { AskResult, HistoryResult, PostResult, ToolInputError, WithdrawResult, type chatTools } from './chat-tools.js';
import { CallerParams, toolCaller, type CallerLookup, type ToolCaller } from './tool-caller.js';

type Tools = ReturnType<typeof chatTools>;

/**
 * The agent tools as plain HTTP: POST /api/agent/{name}/chat/{post,ask,ask/withdraw,history} with the agent token.
 * Same inputs and results as the MCP tools (one definition serves both).
 */
export const agentChatRoutes: FastifyPluginAsync<{ tools: Tools; lookup: CallerLookup; enabled(): boolean }> = async (
  app,
  { tools, lookup, enabled },
) => {
  const routes = {
    post: [tools.leo_chat_post, PostResult],
    ask: [tools.leo_chat_ask, AskResult],
    'ask/withdraw': [tools.leo_chat_ask_withdraw, WithdrawResult],
    history: [tools.leo_chat_history, HistoryResult],
  } as const;
  for (const [action, [tool, result]] of Object.entries(routes)) {
    // Built once per route: zod compiles a schema on first use, and rebuilding it per request was a fifth of a post.
    const body = z.strictObject(tool.input);
    const schema = { params: CallerParams, body, response: { 200: okOf(result) } };
    app.post(`/api/agent/:name/chat/${action}`, { config: { access: Access.agent }, schema }, async (req, reply) => {
      if (!enabled()) throw chatOffError();
      const caller = toolCaller(req, lookup, 'api');
      const args = action === 'ask' ? (req.body ?? {}) : parseInput(body, req.body ?? {}, 'body');
      // The response closing before it was sent means the caller hung up: a blocked ask stops waiting for it.
      const abandoned = new AbortController();
      reply.raw.once('close', () => abandoned.abort());
      try {
        return ok(
          await (tool.run as (c: ToolCaller, a: unknown, abandoned: AbortSignal) => unknown)(
            caller,
            args,
            abandoned.signal,
          ),
        );
      } catch (err) {
        if (err instanceof AskError) throw new HttpError(err.status, err.message, err.code);
        if (err instanceof AttachmentError) throw new HttpError(err.status, err.message);
        if (err instanceof ToolInputError) throw new HttpError(400, err.message);
        throw err;
      }
    });
  }
};
