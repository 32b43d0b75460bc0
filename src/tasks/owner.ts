import path from 'node:path';
import type { Config } from '../config/schema.js';
import { resolveTask } from './task-launch.js';

/** The thread that gets output nobody else owns. */
export const FALLBACK_OWNER = 'assistant';

/** A persistent task runs inside the agent named after it; everything that needs that agent asks here. */
export const PERSISTENT_AGENT_FOR = (task: string): string => task;

export interface OwnerInput {
  task: string;
  owner?: string | undefined;
  runtime: 'oneshot' | 'persistent';
  workspace?: string | undefined;
}

/**
 * Whose thread a task's output goes to (leo-chat.md, Config): the configured owner; else a persistent task's own
 * agent; else the agent working in the task's workspace (first by name); else assistant. An owner that names no
 * agent still posts, to assistant, with a note naming it so the misconfiguration is visible.
 */
export function resolveOwner(
  input: OwnerInput,
  agents: readonly { name: string; workspace: string }[],
): { agent: string; note?: string } {
  const names = new Set(agents.map((a) => a.name));
  if (input.owner !== undefined) {
    if (names.has(input.owner)) return { agent: input.owner };
    return {
      agent: FALLBACK_OWNER,
      note: `task ${input.task}: owner ${JSON.stringify(input.owner)} is not an agent; posting here`,
    };
  }
  if (input.runtime === 'persistent' && names.has(PERSISTENT_AGENT_FOR(input.task)))
    return { agent: PERSISTENT_AGENT_FOR(input.task) };
  // An empty workspace would resolve to the daemon's cwd and match by accident, so it never matches.
  if (input.workspace) {
    const workspace = path.resolve(input.workspace);
    const match = agents
      .filter((a) => a.workspace && path.resolve(a.workspace) === workspace)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))[0];
    if (match) return { agent: match.name };
  }
  return { agent: FALLBACK_OWNER };
}

/**
 * The owner of a task in the config. Its workspace is the one its runs use — the task's, else its template's, else
 * `<workspace_root>/<task>` — so a task lands with the agent working where it works, however that was configured.
 */
export function taskOwner(
  config: Config,
  task: string,
  agents: readonly { name: string; workspace: string }[],
  home: string,
): { agent: string; note?: string } {
  const t = config.tasks[task];
  return resolveOwner(
    {
      task,
      ...(t?.owner ? { owner: t.owner } : {}),
      runtime: t?.runtime ?? 'oneshot',
      ...(t ? { workspace: resolveTask(config, task, t, home).workspace } : {}),
    },
    agents,
  );
}
