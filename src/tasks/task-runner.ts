import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { LeoPaths } from '../core/home.js';
import { newId } from '../core/ids.js';
import type { Logger } from '../core/logger.js';
import { rfc3339 } from '../core/time.js';
import type { TaskRun } from '../wire/fleet.js';
import { fireOneshot } from './oneshot-firing.js';
import { meterRun, type TurnMeter } from './run-usage.js';
import type { runOneshot } from './oneshot-runner.js';
import type { RunPublisher } from './run-publisher.js';
import type { TaskCards } from './task-cards.js';
import { runningRun, runPaths, taskValues, type RunValues } from './task-launch.js';

/** What a persistent firing reports: the free-form stage strings of the spec on failure. */
export type PersistentOutcome = { ok: true } | { ok: false; error: string };

export interface TaskRunnerDeps {
  config(): Config;
  paths: LeoPaths;
  clock: Clock;
  logger: Logger;
  publisher: RunPublisher;
  cards: TaskCards;
  launch: { baseUrl(): string; agentToken: string; leoBin: string; nodeBin: string };
  /** Runs a persistent task's prompt in its agent and waits for the turn to end. */
  persistent(task: string, runId: string, signal: AbortSignal): Promise<PersistentOutcome>;
  /** The values an agent runs with, if it exists: a persistent task's run reports its agent's (see taskValues). */
  agentValues(agent: string): RunValues | undefined;
  /** Meters a oneshot run's turns into its owner's usage. */
  usage: TurnMeter;
  /** The process runner; tests may hand in their own. */
  runOneshot?: typeof runOneshot;
}

/**
 * Runs task firings in the daemon (cron and `POST /api/v1/tasks/:name/run`): one at a time per task, each announced
 * as task_run_started then _succeeded or _failed with the same resolved values, and a failure card for a oneshot
 * task with notify_on_fail that used every attempt without being interrupted.
 */
export class TaskRunner {
  private readonly running = new Map<string, AbortController>();
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly deps: TaskRunnerDeps) {}

  isRunning(task: string): boolean {
    return this.running.has(task);
  }

  /** Starts a firing; null when the task is unknown or its previous run is still going (runs never overlap). */
  fire(task: string): { runId: string; done: Promise<TaskRun> } | null {
    const config = this.deps.config();
    const t = config.tasks[task];
    if (!t || this.running.has(task)) {
      if (t) this.deps.logger.warn({ task }, 'task still running: this firing is skipped');
      return null;
    }
    const runId = newId(this.deps.clock.now());
    const abort = new AbortController();
    this.running.set(task, abort);
    const done = this.run(task, runId, config, abort.signal).finally(() => this.running.delete(task));
    this.inFlight.add(done);
    void done.finally(() => this.inFlight.delete(done));
    return { runId, done };
  }

  /** Interrupts every run in flight (an interrupted run posts no card) and waits for them to be announced. */
  async close(): Promise<void> {
    for (const a of this.running.values()) a.abort();
    await Promise.allSettled([...this.inFlight]);
  }

  private async run(task: string, runId: string, config: Config, signal: AbortSignal): Promise<TaskRun> {
    const t = config.tasks[task]!;
    const startedAt = this.deps.clock.now();
    let values = taskValues(config, task, this.deps.paths.home, this.deps.agentValues);
    const base = (v: RunValues): TaskRun => runningRun(runId, task, startedAt, v);
    let outcome: {
      ok: boolean;
      error: string | null;
      output?: string;
      attempts?: number;
      logPath?: string;
      interrupted: boolean;
    };
    if (t.runtime === 'persistent') {
      this.deps.publisher.publish('task_run_started', base(values));
      const p = await this.deps
        .persistent(task, runId, signal)
        .catch((err): PersistentOutcome => ({ ok: false, error: `task: ${(err as Error).message}` }));
      outcome = { ok: p.ok, error: p.ok ? null : p.error, interrupted: signal.aborted };
    } else {
      const owner = this.deps.cards.ownerOf(task).agent;
      const fired = await fireOneshot({
        config,
        paths: this.deps.paths,
        task,
        runId,
        owner,
        baseUrl: this.deps.launch.baseUrl(),
        agentToken: this.deps.launch.agentToken,
        leoBin: this.deps.launch.leoBin,
        nodeBin: this.deps.launch.nodeBin,
        signal,
        started: (v) => this.deps.publisher.publish('task_run_started', base(v)),
        ...(this.deps.runOneshot ? { run: this.deps.runOneshot } : {}),
      });
      values = fired.values;
      outcome = { ...fired.result, logPath: fired.logPath };
      await meterRun(runPaths(this.deps.paths, task, runId).dir, owner, values.harness, this.deps.usage).catch((err) =>
        this.deps.logger.warn({ task, run_id: runId, err: (err as Error).message }, 'run usage not counted'),
      );
    }
    const endedAt = this.deps.clock.now();
    const finished: TaskRun = {
      ...base(values),
      status: outcome.ok ? 'succeeded' : 'failed',
      ended_at: rfc3339(endedAt),
      duration_ms: Math.max(0, endedAt - startedAt),
      error: outcome.ok ? null : (outcome.error ?? 'failed'),
    };
    this.deps.publisher.publish(outcome.ok ? 'task_run_succeeded' : 'task_run_failed', finished, {
      ...(outcome.attempts !== undefined ? { attempts: outcome.attempts } : {}),
      ...(outcome.logPath ? { logPath: outcome.logPath } : {}),
    });
    if (!outcome.ok && !outcome.interrupted && t.runtime === 'oneshot' && t.notify_on_fail) {
      // No card (Leo Chat off, a store error) changes nothing about the run, which is already recorded failed.
      try {
        this.deps.cards.postFailure({
          task,
          run_id: runId,
          attempts: Math.max(1, outcome.attempts ?? 1),
          // The card is in the owner's thread, which read-only tokens cannot read: the output may go there.
          error: [finished.error ?? 'failed', ...(outcome.output ? [outcome.output] : [])].join('\n'),
          log_path: outcome.logPath ?? '',
        });
      } catch (err) {
        this.deps.logger.warn({ task, run_id: runId, err: (err as Error).message }, 'no failure card was posted');
      }
    }
    return finished;
  }
}
