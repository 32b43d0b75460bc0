import { z } from 'zod';
import type { AskOption } from '../wire/ask-input.js';
import { needsWholeView, showBidiControls } from '../wire/visible-text.js';
import { InputType, MessageKind, type Message } from '../wire/message.js';

/**
 * What a chat message pushes (leo-chat.md, "Push"). Pure: the caller hands in the stored message and the agent's
 * display name and gets the record to dispatch, or null.
 *
 * - An agent's outbound message (direction out), other than a permission prompt or a system note, pushes as kind
 *   chat: title the agent, body the text or, with no text, the attachments' file names; plus message_id,
 *   message_kind, and for an ask input_type (always) and, for a buttons ask, options when they fit.
 * - A permission prompt's only alert is the needs_input attention push, carrying its message_id and
 *   message_kind "permission".
 * - A questions card is an ordinary chat push (ask, input_type questions, no options). It and an open permission
 *   prompt each carry their own alert, so the agent's own needs_input alert (a harness "waiting for input"
 *   notification) is dropped while one is open: see shouldDropNeedsInput.
 * - Inbound messages and system notes push nothing.
 *
 * The phone's OS draws a notification, so bidi controls in the agent's text and labels are sent drawn as code points
 * (⟨U+202E⟩), as the app draws them: a notification cannot read other than its card (issue 28).
 *
 * Size: APNs caps a payload at 4096 bytes and Web Push services guarantee 4096 bytes of encrypted body (aes128gcm
 * spends 103 of them), so a record is kept within PUSH_RECORD_MAX_BYTES of JSON, leaving about 1 KB for the
 * dispatcher's delivery hints and for a bridge's envelope (APNs `aps`). Title and body are cut first (a notification
 * shows a few lines; the thread has the rest); options go in whole or not at all, since a partial set of buttons
 * would misstate the choices, and carry value and label only (a notification button shows no description).
 */

export const PUSH_RECORD_MAX_BYTES = 3072;
export const TITLE_MAX_BYTES = 256;
export const BODY_MAX_BYTES = 1024;

export const PushOption = z.object({ value: z.string(), label: z.string() });
export type PushOption = z.infer<typeof PushOption>;

export const ChatPush = z.object({
  kind: z.literal('chat'),
  /** The thread to open; the title is only for display. */
  agent: z.string(),
  title: z.string(),
  body: z.string(),
  message_id: z.string(),
  message_kind: MessageKind.exclude(['permission', 'system']),
  input_type: InputType.optional(),
  options: z.array(PushOption).optional(),
});
export type ChatPush = z.infer<typeof ChatPush>;

export const NeedsInputPush = z.object({
  kind: z.literal('needs_input'),
  agent: z.string(),
  title: z.string(),
  body: z.string(),
  /** Both present for a permission prompt; both absent on the agent's own alert. */
  message_id: z.string().optional(),
  message_kind: z.literal('permission').optional(),
  /**
   * On a permission prompt whose body does not show the whole input its Allow answers for (cut, or holding invisible
   * characters): the notification offers no Allow, only the card does once all of it is open (issue 28).
   */
  partial: z.literal(true).optional(),
});
export type NeedsInputPush = z.infer<typeof NeedsInputPush>;

/** "Send a test push" (POST /api/v1/push/test): to one device's subscriptions, past the policy; opens the settings. */
export const TestPush = z.object({
  kind: z.literal('test'),
  agent: z.literal(''),
  title: z.string(),
  body: z.string(),
  message_id: z.string().optional(),
});
export type TestPush = z.infer<typeof TestPush>;

export const PushRecord = z.discriminatedUnion('kind', [ChatPush, NeedsInputPush, TestPush]);
export type PushRecord = z.infer<typeof PushRecord>;

export function pushForMessage(message: Message, agentDisplay: string): PushRecord | null {
  if (message.direction !== 'out' || message.kind === 'system') return null;
  const title = clip(agentDisplay || message.agent, TITLE_MAX_BYTES);

  if (message.kind === 'permission') {
    const body = clip(permissionBody(message), BODY_MAX_BYTES);
    return {
      kind: 'needs_input',
      agent: message.agent,
      title,
      body,
      message_id: message.id,
      message_kind: 'permission',
      ...(body !== permissionBody(message) || !shownWhole(message.permission) ? { partial: true as const } : {}),
    };
  }

  const push: ChatPush = {
    kind: 'chat',
    agent: message.agent,
    title,
    body: clip(showBidiControls(postBody(message)), BODY_MAX_BYTES),
    message_id: message.id,
    message_kind: message.kind,
  };
  if (message.kind !== 'ask') return push;

  // input_type is always sent for an ask; an ask stored without input can only be a plain text question.
  const input = message.input;
  push.input_type = input?.type ?? 'text';
  if (input?.type === 'buttons') {
    const options = (input.options ?? []).map(pushOption);
    if (options.length > 0 && byteLength(JSON.stringify({ ...push, options })) <= PUSH_RECORD_MAX_BYTES) {
      push.options = options;
    }
  }
  return push;
}

/** The agent's own attention alert (a harness "needs input" notification), before shouldDropNeedsInput. */
export function needsInputPush(agent: string, agentDisplay: string, text: string): NeedsInputPush {
  return {
    kind: 'needs_input',
    agent,
    title: clip(agentDisplay || agent, TITLE_MAX_BYTES),
    body: clip(showBidiControls(text), BODY_MAX_BYTES),
  };
}

/** An open message that brings its own alert for the agent's pending question: a questions card or a permission prompt. */
export function supersedesNeedsInput(message: Message): boolean {
  if (message.direction !== 'out' || message.state !== 'open') return false;
  if (message.kind === 'permission') return true;
  return message.kind === 'ask' && message.input?.type === 'questions';
}

/**
 * Whether to drop the agent's own needs_input alert: one of its open messages already alerts for the same question.
 * The caller passes the agent's open messages (or any superset; other agents' are ignored).
 */
export function shouldDropNeedsInput(agent: string, openMessages: Iterable<Message>): boolean {
  for (const m of openMessages) if (m.agent === agent && supersedesNeedsInput(m)) return true;
  return false;
}

function postBody(message: Message): string {
  if (message.text.trim() !== '') return message.text;
  return message.attachments.map((a) => a.filename).join(', ');
}

function permissionBody(message: Message): string {
  const p = message.permission;
  if (!p) return message.text;
  return p.summary ? `${p.tool}: ${p.summary}` : p.tool;
}

/** A prompt stored before Leo kept its whole input is judged by its summary: cut ones end in an ellipsis. */
function shownWhole(p: Message['permission']): boolean {
  if (p?.input_cut) return false;
  if (p?.full_input === undefined) return !p?.summary.endsWith('…');
  return !needsWholeView(p.full_input);
}

function pushOption(o: AskOption): PushOption {
  return { value: o.value, label: showBidiControls(o.label) };
}

const utf8 = new TextEncoder();

/** TextEncoder rather than Buffer: Leo Web's build type-checks this module too (policy.ts names PushRecord). */
export function byteLength(s: string): number {
  return utf8.encode(s).length;
}

/** Bytes a string takes inside a JSON document: escapes count (a newline is two bytes, a control character six). */
export function jsonByteLength(s: string): number {
  return byteLength(JSON.stringify(s)) - 2;
}

/** Cuts to at most maxBytes of JSON-encoded UTF-8 (ellipsis included), on a code point boundary. */
export function clip(s: string, maxBytes: number): string {
  if (jsonByteLength(s) <= maxBytes) return s;
  const budget = maxBytes - jsonByteLength('…');
  let used = 0;
  let out = '';
  for (const ch of s) {
    const n = jsonByteLength(ch);
    if (used + n > budget) break;
    used += n;
    out += ch;
  }
  return out + '…';
}
