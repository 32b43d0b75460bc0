import { z } from 'zod';
import { PackPart } from './agent-pack.js';
import { ClosedReason, Direction, MessageKind, MessageState } from './message.js';

/**
 * An agent's thread as a move or a copy ships it (issue 32): its messages (with their attachments' rows), its read
 * marker and its pending reminders, in files under the pack's `thread/` folder that `files` names with their sizes
 * and sha256. The target takes them in under the agent's name there.
 */
export const ThreadManifest = z.object({
  version: z.literal(1),
  /** The agent's name on the source. */
  agent: z.string().min(1),
  messages: z.number().int().nonnegative(),
  attachments: z.number().int().nonnegative(),
  files: z.array(PackPart),
});
export type ThreadManifest = z.infer<typeof ThreadManifest>;

/** The files of a packed thread, relative to its folder; each attachment's file is `attachments/<id>`. */
export const THREAD_FILES = {
  /** One PackedMessage per line, oldest first. */
  messages: 'messages.jsonl',
  /** One PackedAttachment per line. */
  attachments: 'attachments.jsonl',
  /** One PackedReminder per line: the scheduled ones. */
  reminders: 'reminders.jsonl',
  /** PackedReadMarker. */
  read: 'read.json',
} as const;

const Ulid = z.string().regex(/^[0-9A-HJKMNP-TV-Z]{26}$/);
const Text = z.string().nullable();
/** A JSON column: read back with JSON.parse on every page of the thread, so it must parse. */
const Json = z.string().refine(parses, { message: 'JSON text' }).nullable();

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** A row of chat.db's messages, column for column (answer, input and permission as the JSON text stored). */
export const PackedMessage = z.object({
  id: Ulid,
  agent: z.string().min(1),
  direction: Direction,
  kind: MessageKind,
  text: z.string(),
  sender: Text,
  client_id: Text,
  transcript: Text,
  reply_to: Text,
  task: Text,
  run_id: Text,
  state: MessageState,
  answer: Json,
  input: Json,
  permission: Json,
  ts: z.string(),
  deadline: Text,
  closed_reason: ClosedReason.nullable(),
  delivery_note: Text,
});
export type PackedMessage = z.infer<typeof PackedMessage>;

/** A row of chat.db's attachments; `file` names its packed file, null when it was pruned (the row says so). */
export const PackedAttachment = z.object({
  id: Ulid,
  message_id: Ulid,
  agent: z.string().min(1),
  filename: z.string().min(1),
  mime: z.string(),
  bytes: z.number().int().nonnegative(),
  available: z.union([z.literal(0), z.literal(1)]),
  created_at: z.string(),
  position: z.number().int().nullable(),
  file: PackPart.shape.name.nullable(),
});
export type PackedAttachment = z.infer<typeof PackedAttachment>;

/** A scheduled row of chat.db's reminders. */
export const PackedReminder = z.object({
  id: Ulid,
  agent: z.string().min(1),
  text: z.string(),
  at: z.string(),
  at_ms: z.number().int(),
  task: Text,
  run_id: Text,
  created_at: z.string(),
});
export type PackedReminder = z.infer<typeof PackedReminder>;

export const PackedReadMarker = z.object({ last_read_id: z.string().nullable() });
export type PackedReadMarker = z.infer<typeof PackedReadMarker>;
