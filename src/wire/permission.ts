import { z } from 'zod';
import { charCount } from './ask-input.js';
import { ASK_TEXT_MAX_CHARS, type AnswerBody } from './ask-answer.js';
import { showInvisibles } from './visible-text.js';

/**
 * Permission prompts (leo-chat.md, "Permission prompts"): what Claude's PermissionRequest hook (or Leo's opencode
 * plugin, in the same shape) hands Leo, the line a prompt shows, the allow/deny answer, and the shape of the decision
 * a harness reads back (each harness's own is its adapter's `decisions`, e.g. src/harnesses/hook-decisions.ts). Pure.
 */

/** Claude's PermissionRequest hook input, as far as Leo reads it; Claude adds fields Leo ignores. */
export const PermissionRequestPayload = z.looseObject({
  tool_name: z.string().min(1).max(200),
  tool_input: z.unknown().optional(),
  /** Claude's "don't ask again" rules for this call (PermissionUpdate objects), handed back to allow for the session. */
  // A shape Leo does not know only drops the offer: it must never cost the prompt itself.
  permission_suggestions: z
    .array(z.looseObject({ type: z.string() }))
    .optional()
    .catch(undefined),
});
export type PermissionRequestPayload = z.infer<typeof PermissionRequestPayload>;

export const SUMMARY_MAX_CHARS = 500;

/**
 * The decisions a permission prompt takes, as answer values. `allow_session` allows this call and the like of it for
 * the rest of the agent's session, on a prompt that offers it (`permission.allow_session`).
 */
export const PermissionDecision = z.enum(['allow', 'allow_session', 'deny']);
export type PermissionDecision = z.infer<typeof PermissionDecision>;

/**
 * The error codes of a 409 on an answer to a prompt that is no longer answerable, so a client can say which: another
 * device (or a second tap) answered first, the terminal did, or the prompt expired with no dialog left to answer.
 */
export const PromptConflict = z.enum(['answered_elsewhere', 'answered_in_terminal', 'prompt_expired']);
export type PromptConflict = z.infer<typeof PromptConflict>;

/** The answer stored on a prompt answered in the terminal: Claude ended the hook before chat did. */
export const TERMINAL_ANSWER = { values: ['terminal'], text: '' };

/**
 * One line saying what the tool is about to do, for a phone screen: the command, the file or the URL for the tools
 * that have one, the input as compact JSON for the rest. Invisible characters are drawn as code points; cut at
 * SUMMARY_MAX_CHARS.
 */
export function summarizePermission(tool: string, input: unknown): string {
  const field = stringField(input);
  let summary: string;
  const command = bashCommand(tool, input);
  if (command) {
    const description = field('description');
    summary = description ? `${command} (${description})` : command;
  } else {
    summary =
      field('file_path') ??
      field('notebook_path') ??
      field('url') ??
      field('query') ??
      field('pattern') ??
      (input === undefined ? '' : JSON.stringify(input));
  }
  // Drawn before whitespace is collapsed: \s takes in some invisibles (U+FEFF, U+2028) a person must see.
  return cut(showInvisibles(summary).replace(/\s+/g, ' ').trim(), SUMMARY_MAX_CHARS);
}

/**
 * How much of a prompt's input is kept and sent with it (code points). A hook may carry megabytes (a Write of a big
 * file); every thread page, Inbox list and event would carry them too. Past this the prompt keeps the start and counts
 * the rest, and chat does not offer Allow for what nobody could read there.
 */
export const FULL_INPUT_MAX_CHARS = 65_536;

/**
 * The whole input an Allow answers for, as text kept with the prompt: a shell command verbatim (its description is
 * only the model's claim about it), any other tool's input as indented JSON; cut at FULL_INPUT_MAX_CHARS, with the
 * count of what was left out.
 */
export function permissionInput(tool: string, input: unknown): { full_input: string; input_cut?: number } {
  const text = bashCommand(tool, input) ?? (input === undefined ? '' : JSON.stringify(input, null, 2));
  const chars = [...text];
  if (chars.length <= FULL_INPUT_MAX_CHARS) return { full_input: text };
  return { full_input: chars.slice(0, FULL_INPUT_MAX_CHARS).join(''), input_cut: chars.length - FULL_INPUT_MAX_CHARS };
}

// Claude's tool is `Bash`, opencode's permission kind `bash`.
function bashCommand(tool: string, input: unknown): string | undefined {
  return tool === 'Bash' || tool === 'bash' ? stringField(input)('command') : undefined;
}

function stringField(input: unknown): (name: string) => string | undefined {
  return (name) => {
    const v = typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[name] : undefined;
    return typeof v === 'string' && v.trim() !== '' ? v : undefined;
  };
}

export type PermissionAnswerResult =
  { ok: true; decision: PermissionDecision; answer: { values: string[]; text: string } } | { ok: false; error: string };

/** A prompt is answered with exactly one decision; text is optional and only with deny (Claude is told why). */
export function validatePermissionAnswer(body: AnswerBody): PermissionAnswerResult {
  if (body.answers !== undefined)
    return fail('answers: a permission prompt is answered with values ["allow"], ["allow_session"] or ["deny"]');
  const values = body.values ?? [];
  if (values.length !== 1) return fail(`values: exactly one of "allow" or "deny" (got ${values.length} values)`);
  const decision = PermissionDecision.safeParse(values[0]);
  if (!decision.success) return fail(`values[0]: "${values[0]}" is not "allow", "allow_session" or "deny"`);
  const text = (body.text ?? '').trim();
  if (charCount(text) > ASK_TEXT_MAX_CHARS) return fail(`text: longer than ${ASK_TEXT_MAX_CHARS} characters`);
  if (text !== '' && decision.data !== 'deny') return fail('text: only a deny takes text (it tells the agent why)');
  return { ok: true, decision: decision.data, answer: { values: [decision.data], text } };
}

/**
 * How a harness reads the permission hook's answer: what `leo hook` (Claude) or Leo's opencode plugin is handed to
 * print or apply. `updatedInput` is only ever given for a Claude questions card.
 */
export interface DecisionFormat {
  allow(updatedInput?: Record<string, unknown>): string;
  /** `reason` is the person's text, possibly empty. */
  deny(reason: string): string;
  /** Allows with the harness's own suggested rules applied for the session; absent where the harness has none. */
  allowSession?(updatedPermissions: readonly unknown[]): string;
  /**
   * The harness draws its own approval dialog only once the hook has ended without a decision (Codex). Its hook is
   * then released at once, so the terminal can answer while chat's prompt stays open, and an answer from chat is
   * pressed into that dialog.
   */
  dialogAfterHook?: true;
  /**
   * The harness does not wait on the hook, which answers through the harness's own API (opencode: Leo's plugin holds
   * the request while opencode's dialog stays up). At chat's deadline the hook is kept rather than released, so the
   * prompt says the agent waits in its terminal and a late answer from chat still goes through the hook.
   */
  hookOutlivesDeadline?: true;
}

function cut(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join('')}…`;
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
