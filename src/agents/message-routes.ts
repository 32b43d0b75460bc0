import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { DeliveryError } from '../delivery/deliverer.js';
import { isSessionGone } from '../tmux/tmux.js';
import { AgentName } from '../wire/names.js';

export const AgentMessageBody = z.strictObject({ to: AgentName, text: z.string().min(1).max(100_000) });
export const OperatorMessageBody = z.strictObject({ text: z.string().min(1).max(100_000) });
const NameParams = z.object({ name: AgentName });
export const MessageDelivered = z.object({ delivered: z.literal(true), to: z.string() });

export interface MessageRoutesDeps {
  /** Records the message in recent_messages and publishes agent_message (see messageAnnouncer). */
  announce(from: string | undefined, to: string): void;
  /**
   * Hands the text to the target like any inbound message, waking it if parked; throws AgentError (a conflict for
   * an agent stopped on purpose, which a message does not start) or DeliveryError.
   */
  deliver(to: string, text: string): Promise<void>;
}

/**
 * Agent-to-agent messages (agent token, sender's name in the path) and operator messages to an agent. The bus and
 * /state announce only who and when, never the text.
 */
export const messageRoutes: FastifyPluginAsyncZod<MessageRoutesDeps> = async (app, deps) => {
  const send = async (from: string | undefined, to: string, text: string) => {
    const body = from ? `[Leo] Message from agent ${from}:\n${text}` : text;
    try {
      await deps.deliver(to, body);
    } catch (err) {
      throw deliveryHttpError(to, err);
    }
    deps.announce(from, to);
    return ok({ delivered: true as const, to });
  };

  const sending = <B extends z.ZodType>(body: B) => ({
    params: NameParams,
    body,
    response: { 200: okOf(MessageDelivered) },
  });
  const fromAgent = { config: { access: Access.agent }, schema: sending(AgentMessageBody) };
  app.post('/api/agent/:name/message', fromAgent, async (req) => {
    return send(req.params.name, req.body.to, req.body.text);
  });

  const fromOperator = { config: { access: Access.operatorOrPeer }, schema: sending(OperatorMessageBody) };
  app.post('/api/v1/agents/:name/message', fromOperator, async (req) => {
    return send(undefined, req.params.name, req.body.text);
  });
};

/**
 * A failed delivery in the sender's words: its status and code (DeliveryError), with a message naming what did not
 * happen. A session that ended while Leo typed is the agent not running, as a session that was never there is.
 */
export function deliveryHttpError(to: string, err: unknown): unknown {
  if (!(err instanceof DeliveryError)) return err;
  if (err.failure === 'not_running' || err.causes.some(isSessionGone))
    return new HttpError(409, `${to} is not running, so the message was not delivered`, 'agent_not_running');
  return new HttpError(err.statusCode, `the message was not delivered: ${err.message}`, err.code);
}
