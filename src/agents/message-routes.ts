import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { parseInput } from '../http/validate.js';
import { DeliveryError } from '../delivery/deliverer.js';
import { isSessionGone } from '../tmux/tmux.js';
import { AgentError } from './agent-error.js';
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
export const messageRoutes: FastifyPluginAsync<MessageRoutesDeps> = async (app, deps) => {
  const send = async (from: string | undefined, to: string, text: string) => {
    const body = from ? `[Leo] Message from agent ${from}:\n${text}` : text;
    try {
      await deps.deliver(to, body);
    } catch (err) {
      throw deliveryHttpError(to, err);
    }
    deps.announce(from, to);
    return ok({ delivered: true, to });
  };

  const sending = (body: z.ZodType) => ({ params: NameParams, body, response: { 200: okOf(MessageDelivered) } });
  const fromAgent = { config: { access: Access.agent }, schema: sending(AgentMessageBody) };
  app.post('/api/agent/:name/message', fromAgent, async (req) => {
    const from = parseInput(NameParams, req.params, 'params').name;
    const body = parseInput(AgentMessageBody, req.body, 'body');
    return send(from, body.to, body.text);
  });

  const fromOperator = { config: { access: Access.operator }, schema: sending(OperatorMessageBody) };
  app.post('/api/v1/agents/:name/message', fromOperator, async (req) => {
    const to = parseInput(NameParams, req.params, 'params').name;
    const body = parseInput(OperatorMessageBody, req.body, 'body');
    return send(undefined, to, body.text);
  });
};

/**
 * A refused or failed delivery as the caller should see it. The agent not being there to type into (no session, or
 * its session ended while Leo typed) is a 409 the sender can act on; the agent never showing an input box in time is
 * a 504; typing that did not take (the paste never showed, the text stayed in the box) is a 503: try again later.
 */
export function deliveryHttpError(to: string, err: unknown): unknown {
  if (err instanceof AgentError) {
    const status = { not_found: 404, conflict: 409, invalid: 400, config_unavailable: 500 }[err.kind];
    return new HttpError(status, err.message, err.kind === 'config_unavailable' ? 'config_unavailable' : undefined);
  }
  if (!(err instanceof DeliveryError)) return err;
  if (err.failure === 'not_running' || err.causes.some(isSessionGone))
    return new HttpError(409, `${to} is not running, so the message was not delivered`, 'agent_not_running');
  if (err.failure === 'timeout')
    return new HttpError(504, `the message was not delivered: ${err.message}`, 'delivery_timeout');
  return new HttpError(503, `the message was not delivered: ${err.message}`, 'delivery_failed');
}
