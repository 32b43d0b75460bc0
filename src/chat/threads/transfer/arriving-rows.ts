import { decodeTime, encodeTime } from 'ulid';
import { DELIVERY_STARTED } from '../chat-store.js';
import type { PackedAttachment, PackedMessage, PackedReminder } from '../../../wire/thread-pack.js';

/** A packed thread's rows as read from its files. */
export interface PackedThread {
  messages: PackedMessage[];
  attachments: PackedAttachment[];
  reminders: PackedReminder[];
  lastReadId: string | null;
}

/** Which agent's thread already holds a row of that id on this host, if any. */
export interface RowOwners {
  message(id: string): string | null;
  attachment(id: string): string | null;
  reminder(id: string): string | null;
}

/** Why a message whose typing had begun on the source when it was packed is not typed again here. */
export const TYPING_CUT =
  'the agent moved while the message was being typed; it may have arrived, so check before resending';

/** A ULID `ms` milliseconds earlier: the same tail, so ids moved by the same amount keep their order. */
export function shifted(id: string, ms: number): string {
  return ms === 0 ? id : encodeTime(decodeTime(id) - ms, 10) + id.slice(10);
}

/**
 * How far back the pack's ids move here: none, unless another agent's row here holds one of them (a thread coming back
 * to a host that kept it under another name, a copy of a copy). Then the whole thread moves back by the first number
 * of milliseconds that frees every id, so its order stays and taking the same pack in again finds the same rows.
 */
function shiftFor(packed: PackedThread, as: string, owners: RowOwners): number {
  const taken = (owner: (id: string) => string | null, id: string, ms: number) => {
    const o = owner(shifted(id, ms));
    return o !== null && o !== as;
  };
  for (let ms = 0; ; ms++)
    if (
      !packed.messages.some((m) => taken(owners.message, m.id, ms)) &&
      !packed.attachments.some((a) => taken(owners.attachment, a.id, ms)) &&
      !packed.reminders.some((r) => taken(owners.reminder, r.id, ms))
    )
      return ms;
}

/**
 * Pure: the rows a packed thread becomes in `as`'s thread here, under its own ids (shiftFor), every reference
 * following. What was waiting on the owner at the source closes: its asker and its hook stayed there (asks and cards
 * as `agent_gone`, prompts as expired, as the source closes them). A message whose typing had begun fails (it may be in
 * the conversation that moved); one still waiting stays pending for this host's outbox. `file` is the attachment's
 * packed file (null when pruned).
 */
export function arrivingRows(packed: PackedThread, as: string, owners: RowOwners) {
  const ms = shiftFor(packed, as, owners);
  const idOf = (id: string) => shifted(id, ms);
  const inThread = new Set(packed.messages.map((m) => m.id));
  const messageRef = (id: string) => (inThread.has(id) ? idOf(id) : id);
  const messages = packed.messages.map((m): PackedMessage => ({
    ...m,
    ...arrivingState(m),
    id: idOf(m.id),
    agent: as,
    reply_to: m.reply_to === null ? null : messageRef(m.reply_to),
  }));
  const attachments = packed.attachments.map(({ file, ...a }) => ({
    row: {
      ...a,
      id: idOf(a.id),
      message_id: messageRef(a.message_id),
      agent: as,
      available: file === null ? (0 as const) : a.available,
    },
    file,
  }));
  const reminders = packed.reminders.map((r) => ({ ...r, id: idOf(r.id), agent: as }));
  const lastReadId = packed.lastReadId === null ? null : messageRef(packed.lastReadId);
  return { messages, attachments, reminders, lastReadId };
}

function arrivingState(m: PackedMessage): Partial<PackedMessage> {
  if (m.state === 'open')
    return m.kind === 'permission'
      ? { state: 'expired', permission: withoutTerminalWait(m.permission) }
      : { state: 'expired', closed_reason: 'agent_gone' };
  if (m.state === 'expired' && m.kind === 'permission') return { permission: withoutTerminalWait(m.permission) };
  if (m.state === 'pending' && m.delivery_note === DELIVERY_STARTED)
    return { state: 'failed', delivery_note: TYPING_CUT };
  return {};
}

/** A prompt's dialog stays in the source's terminal: here it cannot be answered there. */
function withoutTerminalWait(permission: string | null): string | null {
  if (permission === null) return null;
  const { terminal_waiting: _, ...rest } = JSON.parse(permission) as Record<string, unknown>;
  return JSON.stringify(rest);
}
