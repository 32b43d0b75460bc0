import { parseAttachments, type Attachment } from './attachments.js';
import { invalid, parseOverrides, type Validated } from './overrides.js';
import type { LlmSettings } from '../wire/sessions.js';

/**
 * The body of `POST /agents/:name/chat`, read as the spec writes it: the only 400s are the conditions its table lists
 * (`message` missing or not a string, `continue: true` without `sessionId`, `attachments` not an array, an attachment
 * over the inline cap, an `overrides` field that fails validation). Everything else is read leniently:
 * - unknown top-level fields are ignored;
 * - `sse`, `fireAndForget` and `continue` are on only when `true`;
 * - a `sessionId` that is not a string names no session of ours (404 `SESSION_NOT_FOUND` when the turn looks it up);
 *   `null` and `""` are "omitted";
 * - `continue: true` adds no user message, so a `message` or `attachments` next to it is ignored;
 * - `sse` + `fireAndForget` both true detaches: "`fireAndForget` takes precedence over `sse`".
 */

/** How the route answers: one JSON reply, an SSE stream, or `202` once the session id is known. */
export type ChatResponseMode = 'json' | 'sse' | 'fireAndForget';

export type ChatRequest = { response: ChatResponseMode; overrides: LlmSettings } & (
  | {
      continue: false;
      message: string;
      sessionId: string | null;
      /** The attachments to send: skipped ones (unknown type, audio without data) are left out. */
      attachments: Attachment[];
      /** The first attachment's `type` (null when it has none), skipped or not: an engine that takes none refuses
       * the call on it. Absent when no attachment was given. */
      firstAttachmentType?: string | null;
    }
  | { continue: true; sessionId: string }
);

function sessionIdOf(value: unknown): string | null {
  if (value === undefined || value === null || value === '') return null;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function parseChatRequest(body: unknown): Validated<ChatRequest> {
  const fields: Record<string, unknown> =
    typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const response: ChatResponseMode =
    fields.fireAndForget === true ? 'fireAndForget' : fields.sse === true ? 'sse' : 'json';
  const sessionId = sessionIdOf(fields.sessionId);
  // Checked last, so a body with several faults names them in the order of the spec's table.
  const settings = (): Validated<LlmSettings> =>
    fields.overrides === undefined ? { ok: true, value: {} } : parseOverrides(fields.overrides);

  if (fields.continue === true) {
    if (sessionId === null) return invalid('sessionId', 'is required with continue: true');
    const resolved = settings();
    if (!resolved.ok) return resolved;
    return { ok: true, value: { response, overrides: resolved.value, continue: true, sessionId } };
  }

  const { message, attachments } = fields;
  if (typeof message !== 'string') {
    return invalid('message', message === undefined ? 'is required unless continue is true' : 'must be a string');
  }
  let kept: Attachment[] = [];
  let firstAttachmentType: string | null | undefined;
  if (attachments !== undefined) {
    const result = parseAttachments(attachments);
    if (!result.ok) return result;
    kept = result.value;
    if ((attachments as unknown[]).length > 0) {
      const type = ((attachments as unknown[])[0] as { type?: unknown } | null)?.type;
      firstAttachmentType = typeof type === 'string' ? type : null;
    }
  }
  const resolved = settings();
  if (!resolved.ok) return resolved;
  return {
    ok: true,
    value: {
      response,
      overrides: resolved.value,
      continue: false,
      message,
      sessionId,
      attachments: kept,
      ...(firstAttachmentType !== undefined ? { firstAttachmentType } : {}),
    },
  };
}
