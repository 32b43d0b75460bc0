import type { Database } from '../store/database.js';
import { emptyTotals, type TurnUsage, type UsageTotals } from '../wire/usage.js';

/** One recorded turn. */
export interface UsageRecord {
  agent: string;
  /** The harness's own id of the turn: a second record of it is ignored. */
  key: string;
  harness: string;
  model: string | null;
  atMs: number;
  usage: TurnUsage;
}

export interface DayUsage extends UsageTotals {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
}

interface SumRow {
  key: string;
  turns: number;
  unpriced_turns: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
}

const SUMS = `COUNT(*) AS turns, SUM(cost_usd IS NULL) AS unpriced_turns, SUM(input_tokens) AS input_tokens,
  SUM(output_tokens) AS output_tokens, SUM(cache_read_tokens) AS cache_read_tokens,
  SUM(cache_write_tokens) AS cache_write_tokens, SUM(cost_usd) AS cost_usd`;

const DAY_MS = 24 * 60 * 60 * 1000;

/** chat.db's usage_turns: every turn's usage, once per turn, and the sums read from it. */
export class UsageStore {
  constructor(private readonly db: Database) {}

  /** Stores the turn unless it is already stored; true when it was new. */
  record(r: UsageRecord): boolean {
    const u = r.usage;
    const result = this.db
      .prepare(
        `INSERT OR IGNORE INTO usage_turns (agent, turn_key, harness, model, at_ms, input_tokens, output_tokens,
           cache_read_tokens, cache_write_tokens, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        r.agent,
        r.key,
        r.harness,
        r.model,
        r.atMs,
        u.input_tokens,
        u.output_tokens,
        u.cache_read_tokens,
        u.cache_write_tokens,
        u.cost_usd,
      );
    return result.changes === 1;
  }

  /** Every agent's all-time sums, read once at start-up; the meter keeps them current from then on. */
  totals(): Map<string, UsageTotals> {
    const rows = this.db.prepare(`SELECT agent AS key, ${SUMS} FROM usage_turns GROUP BY agent`).all() as SumRow[];
    return new Map(rows.map((r) => [r.key, totalsOf(r)]));
  }

  /** The agent's sums for each of the `days` UTC days up to and including today's, oldest first, zeros included. */
  perDay(agent: string, days: number, nowMs: number): DayUsage[] {
    const today = Math.floor(nowMs / DAY_MS) * DAY_MS;
    const since = today - (days - 1) * DAY_MS;
    const rows = this.db
      .prepare(
        `SELECT date(at_ms / 1000, 'unixepoch') AS key, ${SUMS} FROM usage_turns
           WHERE agent = ? AND at_ms >= ? GROUP BY key`,
      )
      .all(agent, since) as SumRow[];
    const byDay = new Map(rows.map((r) => [r.key, totalsOf(r)]));
    const out: DayUsage[] = [];
    for (let at = since; at <= today; at += DAY_MS) {
      const day = new Date(at).toISOString().slice(0, 10);
      out.push({ day, ...(byDay.get(day) ?? emptyTotals()) });
    }
    return out;
  }
}

function totalsOf(r: SumRow): UsageTotals {
  return {
    turns: r.turns,
    unpriced_turns: r.unpriced_turns,
    input_tokens: r.input_tokens,
    output_tokens: r.output_tokens,
    cache_read_tokens: r.cache_read_tokens,
    cache_write_tokens: r.cache_write_tokens,
    cost_usd: r.cost_usd,
  };
}
