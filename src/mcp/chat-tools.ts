import { z } from 'zod';
import type { ChatService } from '../chat/chat-service.js';

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

/** Who is calling: the agent named in the path, and the task run when a headless run calls. */
export interface ToolCaller {
  agent: string;
  task?: string | undefined;
  runId?: string | undefined;
}

export class ToolInputError extends Error {}

export function chatTools(chat: ChatService) {
  return {
    leo_chat_post: {
      description:
        "Post a message into your Leo Chat thread (it reaches the owner's phone). Attach files to show them; text is their caption.",
      input: PostInput,
      run(caller: ToolCaller, args: z.infer<z.ZodObject<typeof PostInput>>) {
        if (!args.text.trim() && !args.files?.length) throw new ToolInputError('give text, files, or both');
        const m = chat.post(caller.agent, {
          text: args.text,
          ...(args.files ? { files: args.files } : {}),
          ...(caller.task ? { task: caller.task } : {}),
          ...(caller.runId ? { runId: caller.runId } : {}),
        });
        return { message_id: m.id, ts: m.ts };
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
