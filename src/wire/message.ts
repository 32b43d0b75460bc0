import { z } from 'zod';
import { component } from './components.js';
import { Answer } from './ask-answer.js';
import { AskInputType } from './ask-input.js';
import { MessageInput } from './questions.js';

/** The spec's Message and Thread wire shapes (leo-chat.md, API). `state` is always present; `attachments` is []. */
export const Direction = z.enum(['in', 'out']);
export const MessageKind = z.enum(['text', 'voice', 'file', 'task', 'ask', 'permission', 'system']);
export type MessageKind = z.infer<typeof MessageKind>;

/** Inbound: pending|delivered|failed. Ask and permission: open|answered|expired. Outbound text: ''. */
export const MessageState = z.enum(['', 'pending', 'delivered', 'failed', 'open', 'answered', 'expired']);
export type MessageState = z.infer<typeof MessageState>;

export const ClosedReason = z.enum(['timeout', 'withdrawn', 'agent_gone', 'dismissed']);

/** An ask's input type on the wire: what an agent may ask for, plus the daemon-built questions card. */
export const InputType = z.enum([...AskInputType.options, 'questions']);
export type InputType = z.infer<typeof InputType>;

export const AttachmentRef = z.object({
  id: z.string(),
  filename: z.string(),
  mime: z.string(),
  bytes: z.number().int(),
  available: z.boolean(),
});
export type AttachmentRef = z.infer<typeof AttachmentRef>;

export const Message = component(
  'Message',
  z.object({
    id: z.string(),
    agent: z.string(),
    direction: Direction,
    kind: MessageKind,
    text: z.string(),
    /** client:<name> on a message an API client posted; absent on everything the agent wrote. */
    sender: z
      .string()
      .regex(/^client:.+/)
      .optional(),
    /** The id the sender gave this message (POST …/messages `client_id`), so a client can match its outbox to it. */
    client_id: z.string().optional(),
    transcript: z.string().optional(),
    reply_to: z.string().optional(),
    task: z.string().optional(),
    run_id: z.string().optional(),
    state: MessageState,
    answer: Answer.optional(),
    input: MessageInput.optional(),
    permission: z
      .object({
        tool: z.string(),
        summary: z.string(),
        /**
         * The whole input the prompt's Allow answers for, uncut: a shell command verbatim, another tool's input as
         * JSON. A client shows all of it before it offers Allow (docs/SECURITY.md, issue 28). Absent on prompts stored
         * before Leo kept it.
         */
        full_input: z.string().optional(),
        /**
         * Characters of the input left out of `full_input` (past 64 Ki characters): chat cannot show what Allow
         * would approve, so it takes only a deny; the terminal can still allow.
         */
        input_cut: z.number().int().positive().optional(),
        /** When chat stops holding the prompt (chat.permission_timeout after it was asked), for a countdown. */
        deadline: z.iso.datetime({ offset: true }).optional(),
        /**
         * On an expired prompt (its chat deadline passed, or the daemon restarted): the agent's own dialog is still up
         * in its terminal, so an answer is still taken (Leo presses it there). Absent once the dialog is gone.
         */
        terminal_waiting: z.literal(true).optional(),
        /** The prompt also takes `allow_session`: the harness suggested rules that allow the like of this call. */
        allow_session: z.literal(true).optional(),
      })
      .optional(),
    attachments: z.array(AttachmentRef),
    ts: z.string(),
    deadline: z.iso.datetime({ offset: true }).optional(),
    closed_reason: ClosedReason.optional(),
    /** Why delivery failed, on a failed inbound message only (the system note that follows says the same to a person). */
    failure: z.string().optional(),
  }),
);
export type Message = z.infer<typeof Message>;

/**
 * Whether a card still waits on its owner: open, or a permission prompt whose chat wait ended while the agent's own
 * dialog is still up (answerable there, `permission.terminal_waiting`).
 */
export const awaitsOwner = (m: Message): boolean => m.state === 'open' || m.permission?.terminal_waiting === true;

/** One page of a thread, oldest first; `older` / `newer` are the cursors for the pages before and after it. */
export const MessagePage = z.object({
  messages: z.array(Message),
  older: z.string().nullable(),
  newer: z.string().nullable(),
});
export type MessagePage = z.infer<typeof MessagePage>;

export const Thread = z.object({
  agent: z.string(),
  last_message: Message.nullable(),
  unread: z.number().int(),
  pinned: z.boolean(),
});
export type Thread = z.infer<typeof Thread>;

/** Where a thread has been read up to: POST …/read's answer and the chat.read event every chat reader gets. */
export const ReadMarker = z.object({
  agent: z.string(),
  read_up_to: z.string().nullable(),
  unread: z.number().int(),
});
export type ReadMarker = z.infer<typeof ReadMarker>;

/** Only the assistant's thread is pinned. */
export const PINNED_AGENT = 'assistant';
