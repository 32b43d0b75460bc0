import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AgentName } from '../agents/agent-record.js';
import { HttpError, notFound } from '../http/envelope.js';
import { parseInput } from '../http/validate.js';
import type { ToolCaller } from './chat-tools.js';

/**
 * The headers a caller of the agent tools identifies itself by. A headless task run sets the task ones so its posts
 * become task cards; a subagent started by `leo_dispatch` sets the dispatch one and is refused, because the spec gives
 * the tools to supervised agents and task runs only (a subagent has no thread of its own to post into).
 */
export const CallerHeaders = {
  task: 'x-leo-task',
  runId: 'x-leo-run-id',
  dispatch: 'x-leo-dispatch',
} as const;

/** The environment variables `leo mcp-stdio` turns into those headers. */
export const CallerEnv = {
  [CallerHeaders.task]: 'LEO_TASK',
  [CallerHeaders.runId]: 'LEO_RUN_ID',
  [CallerHeaders.dispatch]: 'LEO_DISPATCH',
} as const;

/** Resolves who calls an agent-tool route: the agent in the path (which must exist) and the task run, if any. */
export function toolCaller(
  req: FastifyRequest,
  agentExists: (name: string) => boolean,
  via: NonNullable<ToolCaller['via']>,
): ToolCaller {
  const { name } = parseInput(z.object({ name: AgentName }), req.params, 'params');
  const header = (h: string) => {
    const v = req.headers[h];
    return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined;
  };
  if (req.headers[CallerHeaders.dispatch] !== undefined)
    throw new HttpError(403, 'leo_dispatch subagents cannot use the Leo Chat tools; post from the supervised agent');
  if (!agentExists(name)) throw notFound(`no agent named "${name}"`);
  return { agent: name, via, task: header(CallerHeaders.task), runId: header(CallerHeaders.runId) };
}
