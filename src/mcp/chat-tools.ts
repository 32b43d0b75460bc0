import { z } from 'zod';
import type { ChatService } from '../chat/threads/chat-service.js';
import { AskToolInput, parseAskRequest } from '../wire/ask-input.js';
import type { AskService } from '../chat/asks/asks.js';
import type { ReminderService } from '../chat/reminders/reminders.js';
import { Message } from '../wire/message.js';
import type { CallerLookup, ToolCaller } from './tool-caller.js';
import { LeoError } from '../core/leo-error.js';

/**
 * Leo's agent tools: each input is a zod shape, which the MCP SDK also publishes as the tool's JSON Schema, and the
 * same shapes back the /api/agent/{name}/chat/* routes.
 */
export const PostInput = {
  text: z.string().max(100_000).default('').describe('The message, or the caption when files are attached'),
  files: z
    .array(z.string().min(1).max(4096))
    .max(20)
    .optional()
    .describe('Absolute paths of files to show in the thread'),
};
export const HistoryInput = {
  limit: z.number().int().min(1).max(200).default(20).describe('How many messages, newest last'),
  before: z.string().max(64).optional().describe('A message id: return messages older than it'),
};

export const WithdrawInput = { message_id: z.string().min(1).max(64).describe('The id leo_chat_ask returned') };

/** What the chat tools answer (the MCP tool result's structuredContent, the HTTP routes' data). */
export const PostResult = z.object({ message_id: z.string(), ts: z.string() });
export const AskResult = z.union([
  z.object({ message_id: z.string(), values: z.array(z.string()), labels: z.array(z.string()), text: z.string() }),
  z.object({
    message_id: z.string(),
    values: z.tuple([]),
    labels: z.tuple([]),
    text: z.literal(''),
    timed_out: z.literal(true),
    closed_reason: z.string(),
  }),
  z.object({ message_id: z.string(), pending: z.literal(true) }),
]);
export const WithdrawResult = z.object({ message_id: z.string(), withdrawn: z.literal(true) });
export const HistoryResult = z.object({ messages: z.array(Message), older: z.string().nullable() });

export const ScheduleInput = {
  text: z.string().min(1).max(10_000).describe('What to post into your thread'),
  at: z
    .string()
    .max(64)
    .describe('RFC 3339 time with seconds and an offset, e.g. 2026-10-14T09:00:00-04:00; future, within a year'),
};
export const ScheduleCancelInput = { id: z.string().min(1).max(64).describe('The id leo_chat_schedule returned') };

export class ToolInputError extends LeoError {
  constructor(message: string) {
    super(400, message);
  }
}

export function chatTools(
  chat: ChatService,
  asks: AskService,
  reminders: ReminderService,
  lookup: Pick<CallerLookup, 'taskOutput'>,
) {
  // A task run's output in a fallback thread is explained there first (the owner it names is not an agent).
  const output = (caller: ToolCaller) => {
    if (caller.task) lookup.taskOutput?.(caller.agent, caller.task, caller.runId);
  };
  return {
    leo_chat_post: {
      description:
        "Post a message into your Leo Chat thread (it reaches the owner's phone). Attach files to show them; text is their caption.",
      input: PostInput,
      run(caller: ToolCaller, args: z.infer<z.ZodObject<typeof PostInput>>) {
        if (!args.text.trim() && !args.files?.length) throw new ToolInputError('give text, files, or both');
        output(caller);
        const m = chat.post(caller.agent, {
          text: args.text,
          ...(args.files ? { files: args.files } : {}),
          ...(caller.task ? { task: caller.task } : {}),
          ...(caller.runId ? { runId: caller.runId } : {}),
        });
        return { message_id: m.id, ts: m.ts };
      },
    },
    leo_chat_ask: {
      description:
        'Ask the owner a question in your Leo Chat thread (buttons, radio, checkboxes or text) and wait for the answer. ' +
        'After 30 minutes the call returns pending: true with message_id; call again with only message_id to keep waiting.',
      input: AskToolInput.shape,
      /** `abandoned` aborts when the harness gives up on the call (see AskService.wait). */
      run(caller: ToolCaller, args: unknown, abandoned?: AbortSignal) {
        const req = parseAskRequest(args, { source: caller.via ?? 'mcp' });
        if (!req.ok) throw new ToolInputError(req.error);
        if (req.request.kind === 'resume') return asks.wait(caller, req.request.messageId, abandoned);
        output(caller);
        const m = asks.open(caller, req.request.question, req.request.input, req.request.timeoutS);
        return asks.wait(caller, m.id, abandoned);
      },
    },
    leo_chat_ask_withdraw: {
      description: 'Withdraw one of your open asks; a call blocked on it returns at once.',
      input: WithdrawInput,
      run(caller: ToolCaller, args: { message_id: string }) {
        return asks.withdraw(caller, args.message_id);
      },
    },
    leo_chat_schedule: {
      description: 'Post a reminder into your thread at a given time (RFC 3339 with offset). Not recurring.',
      input: ScheduleInput,
      run(caller: ToolCaller, args: { text: string; at: string }) {
        const r = reminders.schedule(caller, args.text, args.at);
        output(caller);
        return r;
      },
    },
    leo_chat_schedule_list: {
      description: "List your thread's pending reminders.",
      input: {},
      run(caller: ToolCaller) {
        return { reminders: reminders.list(caller.agent) };
      },
    },
    leo_chat_schedule_cancel: {
      description: 'Cancel one of your pending reminders.',
      input: ScheduleCancelInput,
      run(caller: ToolCaller, args: { id: string }) {
        return reminders.cancel(caller.agent, args.id);
      },
    },
    leo_chat_history: {
      description: 'Read recent messages of your Leo Chat thread, oldest first.',
      input: HistoryInput,
      run(caller: ToolCaller, args: z.infer<z.ZodObject<typeof HistoryInput>>) {
        const page = chat.history(caller.agent, { limit: args.limit, ...(args.before ? { before: args.before } : {}) });
        return { messages: page.messages, older: page.older };
      },
    },
  };
}
