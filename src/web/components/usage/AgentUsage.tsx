import { useEffect, useState } from 'preact/hooks';
import type { AgentUsageDays, UsageTotals } from '../../../wire/usage.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { agents } from '../../stores/fleet.js';
import { formatCost, formatDay, formatTokens, sumTotals, tokensOf } from './usage-format.js';
import './usage.css';

const DAYS = 7;

function Figures({ label, u }: { label: string; u: UsageTotals }) {
  return (
    <div class="usage-figure">
      <span class="usage-label">{label}</span>
      <strong>{formatCost(u)}</strong>
      <span class="muted">
        {formatTokens(tokensOf(u))} tokens · {u.turns} turn{u.turns === 1 ? '' : 's'}
      </span>
    </div>
  );
}

/**
 * What an agent cost: today, the last seven days and each of them, from GET /api/v1/agents/:name/usage (figures only,
 * never what the turns said). Read when the screen opens and again when an agent_usage event counts another turn.
 */
export function AgentUsage({ agent }: { agent: string }) {
  const [usage, setUsage] = useState<AgentUsageDays | null>(null);
  const [error, setError] = useState<string | null>(null);
  const turns = agents.value.get(agent)?.usage?.turns;
  useEffect(() => {
    let live = true;
    api.usage(agent, DAYS).then(
      (u) => live && setUsage(u),
      async (err) => {
        if (live && !(await onUnpaired(err))) setError(err instanceof Error ? err.message : String(err));
      },
    );
    return () => {
      live = false;
    };
  }, [agent, turns]);

  if (error) return <p class="form-error">Usage: {error}</p>;
  if (!usage) return null;
  const week = sumTotals(usage.days);
  const today = usage.days.at(-1);
  const most = Math.max(1, ...usage.days.map(tokensOf));
  const unpriced = week.unpriced_turns;
  return (
    <section class="control-form usage" aria-labelledby="usage-title" data-usage={agent}>
      <h2 id="usage-title" class="group-title">
        Usage
      </h2>
      {week.turns === 0 ? (
        <p class="muted">No turns counted in the last {DAYS} days.</p>
      ) : (
        <>
          <div class="usage-figures">
            {today && <Figures label="Today (UTC)" u={today} />}
            <Figures label={`Last ${DAYS} days`} u={week} />
          </div>
          <ol class="usage-days" aria-label={`Tokens per day, last ${DAYS} days`}>
            {usage.days.map((d) => (
              <li key={d.day} data-day={d.day}>
                <span class="usage-day">{formatDay(d.day)}</span>
                <span class="usage-bar" aria-hidden="true">
                  <span style={{ width: `${(100 * tokensOf(d)) / most}%` }} />
                </span>
                <span class="usage-day-figures">
                  {d.turns ? `${formatTokens(tokensOf(d))} · ${formatCost(d)}` : '—'}
                </span>
              </li>
            ))}
          </ol>
          {unpriced > 0 && (
            <p class="muted">
              {unpriced === 1
                ? '1 turn has no price: its model is not in usage.prices.'
                : `${unpriced} turns have no price: their model is not in usage.prices.`}
            </p>
          )}
        </>
      )}
    </section>
  );
}
