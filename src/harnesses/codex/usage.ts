// Codex's turn usage, from its rollout JSONL (`$CODEX_HOME/sessions/…/rollout-*.jsonl`, the Stop hook's
// transcript_path). Pure over the lines.
//
// Measured with codex 0.171.0 against the scripted Responses API (test/fixtures/codex-rollouts): after each model
// response Codex writes `{"type":"token_usage_record","payload":{turn_id, response_id, usage, turn_token_usage,
// thread_token_usage}}`, where turn_token_usage is the turn's running sum ({input_tokens, cached_input_tokens,
// cache_write_input_tokens, output_tokens, reasoning_output_tokens, total_tokens}); `turn_context` lines carry the
// turn's `model`. OpenAI counts cached input inside input_tokens, so it is taken out here (TurnUsage counts it once, as
// cache_read_tokens); reasoning is inside output_tokens already. The rollout holds no cost.
import { jsonlObject } from '../../core/jsonl.js';
import { count, fields, str, type Fields } from '../../core/lenient.js';
import type { HarnessTurn } from '../../wire/usage.js';

/** The turn's running sum of a token_usage_record, or the model of a turn_context. */
type Line =
  | { type: 'token_usage_record'; turnId: string; usage: Fields }
  | { type: 'turn_context'; turnId: string; model?: string };

/** The usage of turn `turnId` (the Stop's turn_id), or of the rollout's last turn with usage without one. */
export function codexTurnUsage(lines: readonly string[], turnId?: string): HarnessTurn | null {
  const models = new Map<string, string>();
  let found: HarnessTurn | null = null;
  for (const raw of lines) {
    const line = parse(raw);
    if (!line) continue;
    const id = line.turnId;
    if (line.type === 'turn_context') {
      if (line.model !== undefined) models.set(id, line.model);
      continue;
    }
    if (turnId !== undefined && id !== turnId) continue;
    const input = count(line.usage.input_tokens);
    const cached = Math.min(count(line.usage.cached_input_tokens), input);
    found = {
      key: id,
      model: models.get(id) ?? null,
      tokens: {
        input_tokens: input - cached,
        output_tokens: count(line.usage.output_tokens),
        cache_read_tokens: cached,
        cache_write_tokens: count(line.usage.cache_write_input_tokens),
      },
    };
  }
  return found;
}

function parse(raw: string): Line | null {
  // Most rollout lines are other types: skip them before paying for JSON.parse.
  if (!(raw.includes('"token_usage_record"') || raw.includes('"turn_context"'))) return null;
  const value = jsonlObject(raw) as Fields | null;
  const payload = fields(value?.payload);
  const turnId = str(payload?.turn_id);
  if (!payload || turnId === undefined) return null;
  if (value?.type === 'turn_context') return { type: 'turn_context', turnId, model: str(payload.model) };
  const usage = fields(payload.turn_token_usage);
  return value?.type === 'token_usage_record' && usage ? { type: 'token_usage_record', turnId, usage } : null;
}
