import type { Config, Harness } from '../../config/schema.js';
import { AgentError } from '../agent-error.js';
import type { AgentRecord } from '../agent-record.js';

export interface SpawnRequest {
  name: string;
  template: string;
  repo?: string | undefined;
  branch?: string | undefined;
  base?: string | undefined;
  environments?: string[] | undefined;
  env?: Record<string, string> | undefined;
  workspace?: string | undefined;
  /** Its own git worktree of the workspace's repository (the template's `worktree` when unset). */
  worktree?: boolean | undefined;
  /** Overrides of the template's model and harness (a persistent task's own, for its agent). */
  model?: string | undefined;
  harness?: Harness | undefined;
  /** A moved or copied agent's (issue 32): the conversation it resumes from its first start, and its appearance. */
  sessionId?: string | undefined;
  emoji?: string | null | undefined;
  color?: string | null | undefined;
}

/** The record a spawn stores: what the request names, empty lists as none, active from `createdAt`. */
export function spawnedRecord(req: SpawnRequest, createdAt: string): AgentRecord {
  return {
    name: req.name,
    template: req.template,
    repo: req.repo ?? null,
    branch: req.branch ?? null,
    workspace: req.workspace ?? null,
    model: req.model ?? null,
    harness: req.harness ?? null,
    environments: req.environments?.length ? req.environments : null,
    env: req.env && Object.keys(req.env).length ? req.env : null,
    session_id: req.sessionId ?? null,
    emoji: req.emoji ?? null,
    color: req.color ?? null,
    moved_to: null,
    moved_at: null,
    moved_as: null,
    state: 'active',
    stop_reason: null,
    created_at: createdAt,
  };
}

/**
 * Whether the spawn gets its own worktree: the request's choice, else the template's. Such an agent works on
 * `leo/<name>`, so a `branch` in the request is refused rather than silently dropped.
 */
export function wantsWorktree(req: SpawnRequest, config: Config): boolean {
  const worktree = req.worktree ?? config.templates[req.template]?.worktree ?? false;
  if (worktree && req.branch)
    throw new AgentError(
      'invalid',
      'a worktree agent works on its own branch leo/<name>: give base, not branch',
      'branch',
    );
  return worktree;
}

/** A spawn or a template change names a template leo.yaml defines. */
export function assertTemplate(template: string, config: Config): void {
  if (!config.templates[template])
    throw new AgentError('invalid', `template "${template}" is not defined in leo.yaml`, 'template');
}

/** A spawn or an environments change names only environments leo.yaml defines. */
export function assertEnvironments(names: string[] | undefined, config: Config): void {
  const missing = (names ?? []).filter((n) => !(n in config.environments));
  if (missing.length)
    throw new AgentError('invalid', `environments not defined in leo.yaml: ${missing.join(', ')}`, 'environments');
}
