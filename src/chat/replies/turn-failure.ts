/**
 * What the thread says when a turn ended without an answer the owner can read (leo-chat.md, Replies): a turn that
 * failed (no key, the provider refused or erred) or one the person interrupted. Pure: the reply watch posts these.
 */
import { redactProviderText } from '../../core/provider-error.js';

/** The harness's own report of a failed turn, as the transcript readers give it (reply-capture.ts, `failed`). */
export interface TurnFailure {
  text: string;
  error?: string;
}

export const INTERRUPTED_NOTE = 'Interrupted — no reply to this message';

/**
 * The short reason for the fleet and the note's first line, in plain words, from the harness's words and its name for
 * the failure: what went wrong and what the owner can do about it.
 */
export function failureReason(f: TurnFailure): string {
  const text = f.text;
  if (/not logged in/i.test(text)) return 'not logged in — check its environment or run /login';
  const status = httpStatus(f);
  const auth = f.error === 'authentication_failed' || /\b(api key|unauthori[sz]ed|authentication)\b/i.test(text);
  if (status === 401 || (status === undefined && auth))
    return 'the provider refused the request (401 Unauthorized) — check its API key';
  if (status === 403) return 'the provider refused the request (403 Forbidden) — check its API key and access';
  if (status === 429 || /rate.?limit/i.test(text) || f.error === 'rate_limit')
    return 'the provider is rate limiting it — try again later';
  if (/overloaded/i.test(text) || status === 529) return 'the provider is overloaded — try again in a moment';
  if (status !== undefined && status >= 500) return `the provider had an error (${status}) — try again in a moment`;
  if (status !== undefined) return `the provider answered ${status}`;
  return 'the turn failed';
}

/** The system note: the reason, then the harness's own words (secrets blanked, cut short). */
export function failedTurnNote(f: TurnFailure, sentKeys: readonly (string | undefined)[] = []): string {
  const own = redactProviderText(f.text.trim(), sentKeys);
  return own ? `Could not answer: ${failureReason(f)}\n\n${own}` : `Could not answer: ${failureReason(f)}`;
}

/** "status 401", "API Error: 500", "401 Unauthorized": a 4xx or 5xx status the harness's words name. */
const STATUS_IN_TEXT = /\b(?:[Ss]tatus|[Ee]rror):?\s+([45]\d\d)\b|\b([45]\d\d) [A-Z][a-z]/;

/** The HTTP status of the failure: Codex's and opencode's `http_<status>`, else the one its words name. */
function httpStatus(f: TurnFailure): number | undefined {
  const named = /^http_(\d{3})$/.exec(f.error ?? '');
  const said = STATUS_IN_TEXT.exec(f.text);
  const code = named?.[1] ?? said?.[1] ?? said?.[2];
  return code ? Number(code) : undefined;
}

/**
 * What a turn that ended without a reply leaves: a note in its thread; for a failure also the agent's turn_error and
 * an attention push, since the agent can do nothing more until its owner acts.
 */
export function reportUnanswered(d: {
  note(agent: string, text: string): void;
  failed(agent: string, reason: string): void;
  attention(agent: string, text: string): void;
}) {
  return (agent: string, _messageId: string, why: { failure: TurnFailure } | 'interrupted'): void => {
    if (why === 'interrupted') return d.note(agent, INTERRUPTED_NOTE);
    const reason = failureReason(why.failure);
    d.note(agent, failedTurnNote(why.failure));
    d.failed(agent, reason);
    d.attention(agent, `Could not answer: ${reason}`);
  };
}
