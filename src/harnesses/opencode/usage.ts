// opencode's turn usage: Leo's opencode plugin puts the finished turn's figures in its stop payload, as
// `usage: {input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd}` (cost_usd may be null), the
// turn's own id in `turn_id` or `prompt_id` (the user message that began it) when it has one. Pure over the payload.
import { createHash } from 'node:crypto';
import { TurnUsage, type HarnessTurn } from '../../wire/usage.js';

const Payload = TurnUsage.extend({ cost_usd: TurnUsage.shape.cost_usd.optional() });

/**
 * The turn in an opencode stop payload, or null without a well-formed `usage`. Without a turn_id a digest of the whole
 * payload stands for the turn, so the same Stop delivered twice still counts once.
 */
export function opencodeTurnUsage(payload: Record<string, unknown>): HarnessTurn | null {
  const usage = Payload.safeParse(payload.usage);
  if (!usage.success) return null;
  const { cost_usd, ...tokens } = usage.data;
  const named = [payload.turn_id, payload.prompt_id].find((v): v is string => typeof v === 'string' && v !== '');
  const key = named ?? createHash('sha256').update(JSON.stringify(payload)).digest('hex');
  return {
    key,
    model: typeof payload.model === 'string' ? payload.model : null,
    tokens,
    cost_usd: cost_usd ?? null,
  };
}
