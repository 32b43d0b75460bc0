// Codex's turn usage, from its rollout JSONL (`$CODEX_HOME/sessions/…/rollout-*.jsonl`, the Stop hook's
// transcript_path). Pure over the lines.
//
// Measured with codex 0.171.0 against the scripted Responses API (test/fixtures/codex-rollouts): after each model
// response Codex writes `{"type":"token_usage_record","payload":{turn_id, response_id, usage, turn_token_usage,
// thread_token_usage}}`, where turn_token_usage is the turn's running sum ({input_tokens, cached_input_tokens,
// cache_write_input_tokens, output_tokens, reasoning_output_tokens, total_tokens}); `turn_context` lines carry the
// turn's `model`. OpenAI counts cached input inside input_tokens, so it is taken out here (TurnUsage counts it once, as
// cache_read_tokens); reasoning is inside output_tokens already. The rollout holds no cost.
import { z } from 'zod';
import { jsonlObject } from '../../core/jsonl.js';
import type { HarnessTurn } from '../../wire/usage.js';

const count = z.number().int().nonnegative().catch(0);

const Line = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('token_usage_record'),
    payload: z.object({
      turn_id: z.string(),
      turn_token_usage: z.object({
        input_tokens: count,
        cached_input_tokens: count.optional(),
        cache_write_input_tokens: count.optional(),
        output_tokens: count,
      }),
    }),
  }),
  z.object({
    type: z.literal('turn_context'),
    payload: z.object({ turn_id: z.string(), model: z.string().optional().catch(undefined) }),
  }),
]);

/** The usage of turn `turnId` (the Stop's turn_id), or of the rollout's last turn with usage without one. */
export function codexTurnUsage(lines: readonly string[], turnId?: string): HarnessTurn | null {
  const models = new Map<string, string>();
  let found: HarnessTurn | null = null;
  for (const raw of lines) {
    const line = parse(raw);
    if (!line) continue;
    const id = line.payload.turn_id;
    if (line.type === 'turn_context') {
      if (line.payload.model !== undefined) models.set(id, line.payload.model);
      continue;
    }
    if (turnId !== undefined && id !== turnId) continue;
    const u = line.payload.turn_token_usage;
    const cached = Math.min(u.cached_input_tokens ?? 0, u.input_tokens);
    found = {
      key: id,
      model: models.get(id) ?? null,
      tokens: {
        input_tokens: u.input_tokens - cached,
        output_tokens: u.output_tokens,
        cache_read_tokens: cached,
        cache_write_tokens: u.cache_write_input_tokens ?? 0,
      },
    };
  }
  return found;
}

function parse(raw: string): z.infer<typeof Line> | null {
  // Most rollout lines are other types: skip them before paying for JSON.parse.
  if (!(raw.includes('"token_usage_record"') || raw.includes('"turn_context"'))) return null;
  const value = jsonlObject(raw);
  const r = value && Line.safeParse(value);
  return r?.success ? r.data : null;
}
