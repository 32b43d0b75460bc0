import { LeoError } from '../core/leo-error.js';

/** What Leo Chat answers, on every route and agent tool, while `chat.enabled` is false. */
export const CHAT_OFF = 'Leo Chat is off (chat.enabled: false in leo.yaml)';

/**
 * 503 `chat_disabled`: the daemon is up but does not serve chat now. Not 404 — the route exists and a client should
 * say why rather than "not found" — and the setting is read per request, so turning it back on needs no restart.
 */
export function chatOffError(): LeoError {
  return new LeoError(503, CHAT_OFF, 'chat_disabled');
}
