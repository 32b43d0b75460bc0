import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AgentName } from '../wire/names.js';
import { LeoError, notFound } from '../core/leo-error.js';
import { parseInput } from '../http/validate.js';
import { PINNED_AGENT } from '../wire/message.js';
import { CallerHeaders } from '../wire/caller-headers.js';

/** Who is calling: the agent named in the path, and the task run when a headless run calls. */
export interface ToolCaller {
  agent: string;
  /** Bare-string ask options are accepted only as MCP tool input; the HTTP routes take {value, label} objects. */
  via?: 'mcp' | 'api';
  task?: string | undefined;
  runId?: string | undefined;
  /** For a persistent task's turn: whether its owner is the agent running it (then its asks keep no deadline). */
  ownerIsAsker?: boolean;
}

/** What the routes need to know about agents and task runs to identify a caller. */
export interface CallerLookup {
  agentExists(name: string): boolean;
  /** The agent a path names now: after a live rename the harness still calls with its old name until relaunched. */
  currentName(name: string): string;
  /**
   * The persistent task run whose turn is in flight in this agent, and its task's owner: the agent's output during
   * that turn is filed under the run, in the owner's thread.
   */
  taskTurn(agent: string): { task: string; runId: string; owner: string } | undefined;
  /** A task run is about to put output (a post, an ask, a reminder) into `thread`: a fallback owner gets its note. */
  taskOutput(thread: string, task: string, runId: string | undefined): void;
}

// Module level: zod compiles a schema on first use, and building this one per request was a tenth of an agent post.
export const CallerParams = z.object({ name: AgentName });

/**
 * Resolves who calls an agent-tool route: the agent in the path and the task run, if any. The path must name an
 * agent — or, for a task run, the pinned `assistant` thread, where a task whose owner is not an agent posts.
 */
export function toolCaller(req: FastifyRequest, lookup: CallerLookup, via: NonNullable<ToolCaller['via']>): ToolCaller {
  const name = lookup.currentName(parseInput(CallerParams, req.params, 'params').name);
  const header = (h: string) => {
    const v = req.headers[h];
    return typeof v === 'string' && v.length > 0 && v.length <= 200 ? v : undefined;
  };
  if (req.headers[CallerHeaders.dispatch] !== undefined)
    throw new LeoError(403, 'leo_dispatch subagents cannot use the Leo Chat tools; post from the supervised agent');
  const task = header(CallerHeaders.task);
  if (!lookup.agentExists(name) && !(task && name === PINNED_AGENT)) throw notFound(`no agent named "${name}"`);
  if (task) return { agent: name, via, task, runId: header(CallerHeaders.runId) };
  const turn = lookup.taskTurn(name);
  if (!turn) return { agent: name, via };
  // The spec puts a task run's output in its owner's thread; only an owner that is this agent keeps it here.
  return { agent: turn.owner, via, task: turn.task, runId: turn.runId, ownerIsAsker: turn.owner === name };
}
