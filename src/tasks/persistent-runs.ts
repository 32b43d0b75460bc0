import type { Config, Harness } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { PersistentOutcome } from './task-runner.js';

interface Turn {
  task: string;
  runId: string;
  ended(): void;
}

/**
 * Persistent task firings: the prompt goes into the task's own agent (named like the task, spawned on first use from
 * the task's template with its environments, workspace, model and harness) through the chat delivery path, and the
 * run lasts until that agent's turn ends (its Stop hook) or the task's timeout passes. While the turn is in flight the
 * agent's posts and asks are filed under the run. Failures say which stage failed, as the spec's free-form strings:
 * `enqueue: …`, `rejected: …`, `await: …`.
 */
export class PersistentRuns {
  private readonly turns = new Map<string, Turn>();

  constructor(
    private readonly deps: {
      config(): Config;
      clock: Clock;
      agentExists(name: string): boolean;
      spawn(req: {
        name: string;
        template: string;
        environments?: string[];
        workspace?: string;
        model?: string;
        harness?: Harness;
      }): Promise<unknown>;
      start(name: string): Promise<unknown>;
      isRunning(name: string): boolean;
      deliver(agent: string, text: string): Promise<unknown>;
      /** Whether the agent's harness reports turn ends (Claude's Stop hook); others finish at delivery. */
      reportsTurnEnd(agent: string): boolean;
      /** The agent whose thread the task's output goes to (the task owner, resolved). */
      ownerOf(task: string): string;
    },
  ) {}

  /**
   * The run whose turn is in flight in this agent, if any, and whether the agent also owns the task (so a late
   * answer to its ask has an agent to go to, and the ask needs no unattended deadline).
   */
  inFlight(agent: string): { task: string; runId: string; ownerIsAsker: boolean } | undefined {
    const t = this.turns.get(agent);
    return t ? { task: t.task, runId: t.runId, ownerIsAsker: this.deps.ownerOf(t.task) === agent } : undefined;
  }

  /** The agent's turn ended (Claude's Stop hook). */
  turnEnded(agent: string): void {
    this.turns.get(agent)?.ended();
  }

  async run(task: string, runId: string, signal: AbortSignal): Promise<PersistentOutcome> {
    const t = this.deps.config().tasks[task];
    if (!t?.template) return { ok: false, error: `task: ${task} has no template` };
    const agent = task;
    try {
      // The task's own environments, workspace, model and harness go to its agent, as they would to a oneshot run.
      if (!this.deps.agentExists(agent))
        await this.deps.spawn({
          name: agent,
          template: t.template,
          ...(t.environments ? { environments: t.environments } : {}),
          ...(t.workspace ? { workspace: t.workspace } : {}),
          ...(t.model ? { model: t.model } : {}),
          ...(t.harness ? { harness: t.harness } : {}),
        });
      else if (!this.deps.isRunning(agent)) await this.deps.start(agent);
    } catch (err) {
      return { ok: false, error: `enqueue: ${(err as Error).message}` };
    }
    if (this.turns.has(agent)) return { ok: false, error: `enqueue: ${agent} is already running a task turn` };
    let ended!: () => void;
    const turnOver = new Promise<void>((resolve) => (ended = resolve));
    this.turns.set(agent, { task, runId, ended });
    try {
      try {
        await this.deps.deliver(agent, `[Leo Task ${task} run ${runId}] ${t.prompt}`);
      } catch (err) {
        return { ok: false, error: `rejected: ${(err as Error).message}` };
      }
      if (!this.deps.reportsTurnEnd(agent)) return { ok: true };
      let timer: { cancel(): void } | undefined;
      const outcome = await Promise.race([
        turnOver.then((): PersistentOutcome => ({ ok: true })),
        new Promise<PersistentOutcome>((resolve) => {
          timer = this.deps.clock.setTimeout(
            () => resolve({ ok: false, error: `await: the turn did not end within ${Math.round(t.timeout / 1000)} s` }),
            t.timeout,
          );
          signal.addEventListener('abort', () => resolve({ ok: false, error: 'await: interrupted' }), { once: true });
        }),
      ]);
      timer?.cancel();
      return outcome;
    } finally {
      this.turns.delete(agent);
    }
  }
}
