import type { UsageTotals } from '../../../wire/usage.js';

const compact = new Intl.NumberFormat([], { notation: 'compact', maximumFractionDigits: 1 });
const dollars = new Intl.NumberFormat([], { style: 'currency', currency: 'USD', minimumFractionDigits: 2 });
const cents = new Intl.NumberFormat([], { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });
const day = new Intl.DateTimeFormat([], { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' });

/** Every token a turn moved: full-price input, output and both cache kinds. */
export const tokensOf = (u: UsageTotals) =>
  u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_write_tokens;

export const formatTokens = (n: number) => compact.format(n);

/** Below a cent the figure keeps two significant digits ($0.0042), so a cheap day does not read as free. */
export function formatCost(u: UsageTotals): string {
  if (u.cost_usd === null) return u.turns ? 'no price' : '—';
  return u.cost_usd > 0 && u.cost_usd < 0.01 ? cents.format(u.cost_usd) : dollars.format(u.cost_usd);
}

/** The route's UTC day (YYYY-MM-DD), as the reader says a date. */
export const formatDay = (iso: string) => day.format(new Date(`${iso}T00:00:00Z`));

/** Sums of several days' totals (a week, from the per-day route). */
export function sumTotals(days: readonly UsageTotals[]): UsageTotals {
  const priced = days.filter((d) => d.cost_usd !== null);
  return {
    turns: days.reduce((n, d) => n + d.turns, 0),
    unpriced_turns: days.reduce((n, d) => n + d.unpriced_turns, 0),
    input_tokens: days.reduce((n, d) => n + d.input_tokens, 0),
    output_tokens: days.reduce((n, d) => n + d.output_tokens, 0),
    cache_read_tokens: days.reduce((n, d) => n + d.cache_read_tokens, 0),
    cache_write_tokens: days.reduce((n, d) => n + d.cache_write_tokens, 0),
    cost_usd: priced.length ? priced.reduce((n, d) => n + (d.cost_usd ?? 0), 0) : null,
  };
}
