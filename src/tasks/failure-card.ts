import { z } from 'zod';
import { NameSchema } from '../wire/names.js';

/** How much of the error a card shows (leo-chat.md, Task failure cards), counted in code points. */
export const CARD_ERROR_CHARS = 500;

/**
 * POST /chat/task-failure, sent by `leo run` over the socket. The error is accepted long (the card keeps only its
 * start) so an overlong error never costs the card.
 */
export const TaskFailureBody = z.strictObject({
  task: NameSchema,
  run_id: z.string().trim().min(1).max(200),
  attempts: z.number().int().min(1).max(1000),
  error: z.string().max(64 * 1024),
  log_path: z.string().min(1).max(4096),
});
export type TaskFailureBody = z.infer<typeof TaskFailureBody>;

const longestBacktickRun = (s: string): number => Math.max(0, ...(s.match(/`+/g) ?? []).map((r) => r.length));

/** Inline code that a backtick inside the value cannot close early (CommonMark: a longer delimiter, padded). */
function inlineCode(s: string): string {
  const run = longestBacktickRun(s);
  if (run === 0) return `\`${s}\``;
  const fence = '`'.repeat(run + 1);
  const pad = s.startsWith('`') || s.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${s}${pad}${fence}`;
}

/**
 * The failure card's text, the spec's template to the letter ("<n> attempt(s)" included: a client may read the card
 * by that template, so it is not reworded to "1 attempt" / "3 attempts"). The error sits in a fenced block whose
 * fence is longer than any backtick run inside it, so an error containing ``` cannot end the block and spill markdown
 * into the card.
 */
export function failureCardText(input: {
  task: string;
  runId: string;
  attempts: number;
  error: string;
  logPath: string;
}): string {
  const error = Array.from(input.error).slice(0, CARD_ERROR_CHARS).join('');
  const fence = '`'.repeat(Math.max(3, longestBacktickRun(error) + 1));
  return [
    `**Task failed: ${input.task}**`,
    `Run ${inlineCode(input.runId)} · ${input.attempts} attempt(s)`,
    fence,
    error,
    fence,
    `Log: ${inlineCode(input.logPath)}`,
  ].join('\n');
}
