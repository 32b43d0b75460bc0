import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { Harness } from '../config/schema.js';
import type { TurnUsageInput } from './turn-usage-input.js';
import type { TurnUsageReader } from '../harnesses/adapter.js';
import { HARNESSES } from '../harnesses/index.js';
import { TRANSCRIPT_READERS } from '../harnesses/transcript-readers.js';
import { pricedUsage, type ModelPrices } from './pricing.js';
import { addTurn, emptyTotals, type AgentUsageEvent, type HarnessTurn, type UsageTotals } from '../wire/usage.js';
import type { DayUsage, UsageStore } from './usage-store.js';

export interface UsageMeterDeps {
  store: UsageStore;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  prices(): ModelPrices;
  /** Reads a transcript's turn on the worker pool (workers/turn-usage.ts). */
  read(input: TurnUsageInput): Promise<HarnessTurn | null>;
}

/**
 * Usage per turn, for every harness: on each Stop hook the ended turn's usage is read from what the harness reports
 * (Claude's transcript and Codex's rollout at the Stop's transcript_path, opencode's stop payload), priced, stored
 * once per turn (the harness's turn id keys it, so a replayed Stop or one seen again after a restart adds nothing),
 * summed per agent for /api/v1/state and published as agent_usage.
 */
export class UsageMeter {
  private readonly sums: Map<string, UsageTotals>;

  constructor(private readonly deps: UsageMeterDeps) {
    this.sums = deps.store.totals();
  }

  /** The agent's all-time sums (zeros before its first turn). */
  totals(agent: string): UsageTotals {
    return this.sums.get(agent) ?? emptyTotals();
  }

  perDay(agent: string, days: number): DayUsage[] {
    return this.deps.store.perDay(agent, days, this.deps.clock.now());
  }

  /** A renamed agent keeps its sums, as its rows move with it. */
  renamed(from: string, to: string): void {
    const sums = this.sums.get(from);
    this.sums.delete(from);
    if (sums) this.sums.set(to, sums);
  }

  /** A Stop hook of `agent`, whose harness is `harness` (null: an agent Leo does not know, which counts nothing). */
  async onStop(agent: string, harness: Harness | null, payload: Record<string, unknown>): Promise<void> {
    const usage = harness === null ? undefined : HARNESSES[harness].usage;
    if (harness === null || !usage) return;
    let turn: HarnessTurn | null;
    try {
      turn = await this.readTurn(harness, usage, payload);
    } catch (err) {
      this.deps.logger.warn({ agent, err: (err as Error).message }, 'turn usage unreadable');
      return;
    }
    if (turn) this.count(agent, harness, turn);
  }

  /**
   * At start-up: the last turn of an agent's transcript, in case its Stop found the daemon down. Only a turn the
   * transcript shows ended is read (one still running is counted by its own Stop), and a turn already counted adds
   * nothing (the turn's key). Only for a harness whose transcript shows a turn ended (Claude's).
   */
  async catchUp(agent: string, harness: Harness, transcript: string): Promise<void> {
    const { usage, transcriptFormat: format } = HARNESSES[harness];
    if (!usage || usage.fromStop || !TRANSCRIPT_READERS[format].lastEnded) return;
    try {
      const turn = await this.deps.read({ format, transcript, ended: true });
      if (turn) this.count(agent, harness, turn);
    } catch (err) {
      this.deps.logger.warn({ agent, err: (err as Error).message }, 'turn usage unreadable');
    }
  }

  private count(agent: string, harness: Harness, turn: HarnessTurn): void {
    const usage = pricedUsage(turn, this.deps.prices());
    const stored = this.deps.store.record({
      agent,
      key: turn.key,
      harness,
      model: turn.model,
      atMs: this.deps.clock.now(),
      usage,
    });
    if (!stored) return;
    const totals = addTurn(this.totals(agent), usage);
    this.sums.set(agent, totals);
    this.deps.bus.publish('agent_usage', {
      agent,
      harness,
      model: turn.model,
      turn: usage,
      totals,
    } satisfies AgentUsageEvent);
  }

  private readTurn(harness: Harness, usage: TurnUsageReader, payload: Record<string, unknown>) {
    if (usage.fromStop) return Promise.resolve(usage.fromStop(payload));
    if (typeof payload.transcript_path !== 'string') return Promise.resolve(null);
    // The turn the Stop ended, as each harness names it: Claude's prompt_id, Codex's turn_id.
    const turn = usage.turnField === undefined ? undefined : payload[usage.turnField];
    return this.deps.read({
      format: HARNESSES[harness].transcriptFormat,
      transcript: payload.transcript_path,
      ...(typeof turn === 'string' ? { turn } : {}),
    });
  }
}
