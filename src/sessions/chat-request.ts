import { z } from 'zod';
import { parseAttachments, type Attachment } from './attachments.js';
import { invalid, parseOverrides, zodFailure, type Validated } from './overrides.js';
import type { LlmSettings } from './session-schemas.js';

/**
 * The body of `POST /agents/:name/chat`. Decisions where the spec is silent or torn:
 * - unknown top-level fields are a 400 naming the field: a misspelt `sesionId` would otherwise silently start a new
 *   session;
 * - `sse` + `fireAndForget` both true is accepted and detaches: the table calls them mutually exclusive, but the
 *   fire-and-forget section states the rule for when both arrive ("`fireAndForget` takes precedence over `sse`"), and
 *   a stated precedence only means something if the pair is allowed;
 * - `continue: true` with a `message` or `attachments` is a 400: `continue` adds no user message, so either would be
 *   dropped without a word;
 * - a blank `message` is a 400 unless attachments remain to send: it would be an empty user turn;
 * - `null` is not "absent": every present field must have its type.
 */
const ChatRequestBody = z.strictObject({
  message: z.string().optional(),
  sessionId: z.string().min(1).optional(),
  sse: z.boolean().optional(),
  fireAndForget: z.boolean().optional(),
  continue: z.boolean().optional(),
  attachments: z.unknown().optional(),
  overrides: z.unknown().optional(),
});

/** How the route answers: one JSON reply, an SSE stream, or `202` once the session id is known. */
export type ChatResponseMode = 'json' | 'sse' | 'fireAndForget';

export type ChatRequest = { response: ChatResponseMode; overrides: LlmSettings } & (
  | {
      continue: false;
      message: string;
      sessionId: string | null;
      /** The attachments to send: skipped ones (unknown type, audio without data) are left out. */
      attachments: Attachment[];
      /** The first attachment given, skipped or not: an engine that takes none refuses the call on it. */
      firstAttachmentType?: string;
    }
  | { continue: true; sessionId: string }
);

const ACCEPTED = Object.keys(ChatRequestBody.shape).join(', ');

export function parseChatRequest(body: unknown): Validated<ChatRequest> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return invalid('body', 'must be a JSON object');
  }
  const parsed = ChatRequestBody.safeParse(body);
  if (!parsed.success) return zodFailure('', parsed.error, `unknown field (accepted: ${ACCEPTED})`);
  const { message, sessionId, sse, fireAndForget, continue: resume, attachments, overrides } = parsed.data;
  const response: ChatResponseMode = fireAndForget ? 'fireAndForget' : sse ? 'sse' : 'json';
  // Checked last, so a body with several faults names them in the order of the spec's table.
  const settings = (): Validated<LlmSettings> =>
    overrides === undefined ? { ok: true, value: {} } : parseOverrides(overrides);

  if (resume) {
    if (sessionId === undefined) return invalid('sessionId', 'is required with continue: true');
    if (message !== undefined) return invalid('message', 'must be omitted with continue: true, which adds no message');
    if (attachments !== undefined) {
      return invalid('attachments', 'must be omitted with continue: true, which adds no message');
    }
    const resolved = settings();
    if (!resolved.ok) return resolved;
    return { ok: true, value: { response, overrides: resolved.value, continue: true, sessionId } };
  }

  if (message === undefined) return invalid('message', 'is required unless continue is true');
  let kept: Attachment[] = [];
  let firstAttachmentType: string | undefined;
  if (attachments !== undefined) {
    const result = parseAttachments(attachments);
    if (!result.ok) return result;
    kept = result.value;
    // parseAttachments has checked that every item is an object with a string type.
    firstAttachmentType = (attachments as { type: string }[])[0]?.type;
  }
  if (!message.trim() && kept.length === 0) return invalid('message', 'must not be empty without attachments');
  const resolved = settings();
  if (!resolved.ok) return resolved;
  return {
    ok: true,
    value: {
      response,
      overrides: resolved.value,
      continue: false,
      message,
      sessionId: sessionId ?? null,
      attachments: kept,
      ...(firstAttachmentType !== undefined ? { firstAttachmentType } : {}),
    },
  };
}
