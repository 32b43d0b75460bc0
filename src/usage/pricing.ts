import type { Config } from '../config/schema.js';
import type { HarnessTurn, TurnUsage } from '../wire/usage.js';

export type ModelPrices = Config['usage']['prices'];

/**
 * A turn's usage with its cost: the harness's own figure when it gave one (opencode's, unless null), else the model's
 * row of `usage.prices` (USD per million tokens; cache reads and writes at the input price unless priced themselves),
 * else null. Claude and Codex record no cost in their transcripts, and a price list compiled into Leo would go stale.
 */
export function pricedUsage(turn: HarnessTurn, prices: ModelPrices): TurnUsage {
  const t = turn.tokens;
  if (turn.cost_usd !== undefined && turn.cost_usd !== null) return { ...t, cost_usd: turn.cost_usd };
  const price = turn.model === null ? undefined : priceOf(turn.model, prices);
  if (!price) return { ...t, cost_usd: null };
  const cost =
    t.input_tokens * price.input +
    t.output_tokens * price.output +
    t.cache_read_tokens * (price.cache_read ?? price.input) +
    t.cache_write_tokens * (price.cache_write ?? price.input);
  return { ...t, cost_usd: cost / 1_000_000 };
}

/**
 * The model's row: its own, else the longest key it extends with a `-` suffix, so `claude-sonnet-4-5` prices the
 * dated `claude-sonnet-4-5-20250929` the API reports for it.
 */
function priceOf(model: string, prices: ModelPrices): ModelPrices[string] | undefined {
  if (Object.hasOwn(prices, model)) return prices[model];
  const base = Object.keys(prices)
    .filter((k) => model.startsWith(`${k}-`))
    .sort((a, b) => b.length - a.length)[0];
  return base === undefined ? undefined : prices[base];
}
