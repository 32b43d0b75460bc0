// What one agent turn cost, as every harness reports it, and what the daemon sums from those turns. Pure shapes, shared
// with Leo Web through the state snapshot.
import { z } from 'zod';

const Tokens = z.number().int().nonnegative();

/**
 * One turn's usage. `input_tokens` counts input read at full price only: cache reads and cache writes are their own
 * fields (Claude reports them so; Codex's cached input is taken out of its input count). `cost_usd` is null when
 * nothing priced the turn (a model missing from `usage.prices` and a harness that reports no cost).
 */
export const TurnUsage = z.strictObject({
  input_tokens: Tokens,
  output_tokens: Tokens,
  cache_read_tokens: Tokens,
  cache_write_tokens: Tokens,
  cost_usd: z.number().nonnegative().nullable(),
});
export type TurnUsage = z.infer<typeof TurnUsage>;

export type TokenCounts = Omit<TurnUsage, 'cost_usd'>;

/** A turn as a harness's reader found it: its own stable id (so a replayed Stop counts once) and its model. */
export interface HarnessTurn {
  key: string;
  model: string | null;
  tokens: TokenCounts;
  /** Set when the harness priced the turn itself (opencode). */
  cost_usd?: number | null;
}

/** An agent's sums: /api/v1/state's `usage` and each day of the per-day route. cost_usd sums the priced turns. */
export const UsageTotals = TurnUsage.extend({
  turns: Tokens,
  /** Turns without a cost: when > 0, cost_usd leaves them out. */
  unpriced_turns: Tokens,
});
export type UsageTotals = z.infer<typeof UsageTotals>;

/** GET /api/v1/agents/:name/usage's data: the agent's sums per UTC day, oldest first, every day listed. */
export const AgentUsageDays = z.object({
  agent: z.string(),
  days: z.array(UsageTotals.extend({ day: z.string() })),
  totals: UsageTotals,
});
export type AgentUsageDays = z.infer<typeof AgentUsageDays>;

/** The agent_usage event's data: one stored turn, and the agent's all-time sums with it. */
export const AgentUsageEvent = z.object({
  agent: z.string(),
  harness: z.string(),
  model: z.string().nullable(),
  turn: TurnUsage,
  totals: UsageTotals,
});
export type AgentUsageEvent = z.infer<typeof AgentUsageEvent>;

export function emptyTotals(): UsageTotals {
  return {
    turns: 0,
    unpriced_turns: 0,
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: null,
  };
}

export function addTurn(totals: UsageTotals, turn: TurnUsage): UsageTotals {
  return {
    turns: totals.turns + 1,
    unpriced_turns: totals.unpriced_turns + (turn.cost_usd === null ? 1 : 0),
    input_tokens: totals.input_tokens + turn.input_tokens,
    output_tokens: totals.output_tokens + turn.output_tokens,
    cache_read_tokens: totals.cache_read_tokens + turn.cache_read_tokens,
    cache_write_tokens: totals.cache_write_tokens + turn.cache_write_tokens,
    cost_usd: turn.cost_usd === null ? totals.cost_usd : (totals.cost_usd ?? 0) + turn.cost_usd,
  };
}
