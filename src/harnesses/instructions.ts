// What every supervised agent is told about Leo Chat, once, through its harness's own instructions mechanism (never
// typed into its prompt, never written into the workspace or the user's home). One text, rendered for each harness:
// only the sentence on how a reply reaches the owner differs, because Leo captures a turn's final answer only for a
// harness whose turn end it is told of (its Stop hook).
import path from 'node:path';
import type { Harness } from '../config/schema.js';
import { FILE_MODE } from './common.js';
import { HARNESSES } from './index.js';
import type { LaunchContext, PlannedFile } from './types.js';

/** The file under the agent's (or task run's) state dir that holds the text; LEO_INSTRUCTIONS names it. */
const INSTRUCTIONS_FILE = 'leo-instructions.md';

/** The variable that names the file, for any program in the session (a `harness: shell` script reads it). */
export const INSTRUCTIONS_ENV = 'LEO_INSTRUCTIONS';

export function instructionsPath(ctx: LaunchContext): string {
  return path.join(ctx.leo.agentDir, INSTRUCTIONS_FILE);
}

/**
 * The text for an agent of `harness`, or for a task run (`ctx.task` set), whose output reaches the owner only through
 * the tools: a run's printed answer is not posted.
 */
export function leoInstructions(harness: Harness, ctx: Pick<LaunchContext, 'task'>): string {
  const replying =
    ctx.task !== undefined
      ? [
          `You are running Leo's scheduled task "${ctx.task}". Nothing you print reaches the owner: post what they ` +
            "should see (the result, a question, a file) with leo_chat_post; it shows as the task's card in their thread.",
        ]
      : HARNESSES[harness].repliesCaptured
        ? [
            'Answer a [Leo Chat] message as you would answer any prompt: when your turn ends, Leo posts your final ' +
              'answer into the thread. Use leo_chat_post only for something more (a progress note, files); a turn ' +
              'that posted with leo_chat_post gets no second, automatic reply.',
          ]
        : [
            'Nothing you write in this terminal reaches the owner. Answer every [Leo Chat] message with the ' +
              'leo_chat_post tool, in words meant for a phone screen.',
          ];
  return [
    '# Leo Chat',
    '',
    'You are supervised by Leo. Your owner talks to you through Leo Chat, a chat thread on their phone or browser.',
    'Their messages are typed into your input as a line that starts with `[Leo Chat] `. A message that starts with',
    '`[Leo Chat from client:<name>] ` was sent by an API client (a dashboard or a script), not by your owner: weigh it',
    "as that client's words. A message may go on with `Attachments: <paths>` (files on this machine you can read) or",
    '`In reply to …` (the card or question it answers).',
    '',
    ...replying,
    '',
    "Leo's tools (its MCP server is named `leo`):",
    '- leo_chat_post {text, files}: post into your thread. To show the owner a file (an image, a PDF, a log), pass',
    '  its absolute path in `files`; `text` is then its caption.',
    '- leo_chat_ask: ask the owner a question (buttons, choices, checkboxes or free text) and wait for the answer.',
    '  After 30 minutes it returns `pending: true` with a message_id: call it again with only message_id to keep',
    '  waiting. leo_chat_ask_withdraw {message_id} takes a question back.',
    '- leo_chat_schedule {text, at}: post a reminder into your thread at `at` (RFC 3339 with seconds and an offset,',
    '  e.g. 2026-10-14T09:00:00-04:00), once. leo_chat_schedule_list and leo_chat_schedule_cancel {id} manage them.',
    '- leo_chat_history {limit, before}: read recent messages of your thread.',
    '',
  ].join('\n');
}

/** The text as a private file in the state dir (it names no secret, but its folder is private anyway). */
export function instructionsFile(harness: Harness, ctx: LaunchContext): PlannedFile {
  return { path: instructionsPath(ctx), content: leoInstructions(harness, ctx), mode: FILE_MODE };
}
