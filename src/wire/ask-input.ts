import { z } from 'zod';

/**
 * What an agent may ask with leo_chat_ask (spec: leo-chat.md, "Ask inputs" and "Ask lifecycle"). Pure: raw tool or
 * API input in, the one wire shape out, or a message naming the offending field. No I/O, no clock.
 */

// The spec caps only free text (4000). The rest are Leo's own bounds: an ask is stored forever, fanned out to every
// client and shown on a phone card, so an agent must not be able to make one unbounded.
export const ASK_QUESTION_MAX_CHARS = 4000;
export const ASK_OPTIONS_MAX = 50;
export const ASK_VALUE_MAX_CHARS = 200;
export const ASK_LABEL_MAX_CHARS = 200;
export const ASK_DESCRIPTION_MAX_CHARS = 1000;
export const ASK_PLACEHOLDER_MAX_CHARS = 200;
export const ASK_TIMEOUT_MAX_S = 3600;
/** The deadline an ask keeps when no agent could take a late answer and the caller set none. */
export const ASK_UNATTENDED_TIMEOUT_S = 300;

/** A field error that tells a missing field from a mistyped one, e.g. `is required` vs `must be a string`. */
export function mustBe(what: string): { error: (issue: { input?: unknown }) => string } {
  return { error: (issue) => (issue.input === undefined ? 'is required' : `must be ${what}`) };
}

export const AskInputType = z.enum(
  ['buttons', 'radio', 'checkboxes', 'text'],
  // questions is a real input type on the wire, but only the daemon builds it (for AskUserQuestion).
  mustBe('buttons, radio, checkboxes or text (questions cards are built by the daemon, not asked for)'),
);
export type AskInputType = z.infer<typeof AskInputType>;

/** One choice, as the API and events carry it. description is omitted rather than sent empty. */
export const AskOption = z.strictObject({
  value: z.string(mustBe('a string')),
  label: z.string(mustBe('a string')),
  description: z.string(mustBe('a string')).optional(),
});
export type AskOption = z.infer<typeof AskOption>;

const WholeNumber = z.number(mustBe('a number')).int(mustBe('a whole number'));

/** An ask's input on the wire (API and events): options are always objects. */
export const AskInput = z.strictObject({
  type: AskInputType,
  options: z.array(AskOption, mustBe('an array')).optional(),
  allow_text: z.boolean(mustBe('true or false')).optional(),
  min: WholeNumber.optional(),
  max: WholeNumber.optional(),
  placeholder: z.string(mustBe('a string')).optional(),
});
export type AskInput = z.infer<typeof AskInput>;

/** MCP tool input is the only place an option may be a bare string, which stands for {value: s, label: s}. */
const ToolOption = z.union([z.string(), AskOption], mustBe('a string or a {value, label} object'));
const ToolOptions = z.array(ToolOption, mustBe('an array'));

export const ToolAskInput = AskInput.extend({ options: ToolOptions.optional() });
export type ToolAskInput = z.infer<typeof ToolAskInput>;

const TimeoutS = z.number(mustBe('a number of seconds'));

/**
 * leo_chat_ask's arguments (and the agent ask route's body). Omitting input and giving top-level options asks
 * buttons; giving both is an error. A call with only message_id resumes waiting on an earlier ask.
 */
export const AskToolInput = z.strictObject({
  question: z.string(mustBe('a string')).optional(),
  input: ToolAskInput.optional(),
  options: ToolOptions.optional(),
  timeout_s: TimeoutS.optional(),
  message_id: z.string(mustBe('a string')).optional(),
});
export type AskToolInput = z.infer<typeof AskToolInput>;

export type AskSource = 'mcp' | 'api';

export type AskInputResult = { ok: true; input: AskInput } | { ok: false; error: string };

export type AskRequest =
  { kind: 'ask'; question: string; input: AskInput; timeoutS: number | null } | { kind: 'resume'; messageId: string };
export type AskRequestResult = { ok: true; request: AskRequest } | { ok: false; error: string };

/** Counted in code points, so an emoji is one character as the user sees it, not two UTF-16 units. */
export function charCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Renders the first zod issue as `field.path: message` (`root: message` when the whole value is wrong), choosing the
 * union branch that got furthest so a bad option object names its bad field.
 */
export function describeZodError(error: z.ZodError, prefix = '', root = 'body'): string {
  let issue: z.core.$ZodIssue = error.issues[0]!;
  let path: PropertyKey[] = [...issue.path];
  let message = issue.message;
  if (issue.code === 'invalid_union') {
    const deepest = issue.errors
      .map((branch) => branch[0])
      .filter((i): i is z.core.$ZodIssue => i !== undefined)
      .sort((a, b) => b.path.length - a.path.length)[0];
    // A branch that failed at its root says nothing the union's own message does not; one that got inside
    // (an object with a bad label) names the real problem.
    if (deepest && deepest.path.length > 0) {
      issue = deepest;
      path = [...path, ...deepest.path];
      message = deepest.message;
    }
  }
  if (issue.code === 'unrecognized_keys') {
    path = [...path, issue.keys[0] ?? ''];
    message = 'unknown field';
  }
  if (/received undefined$/.test(message)) message = 'is required';
  const where = fieldPath(prefix, path);
  return `${where || root}: ${message}`;
}

function fieldPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}

/**
 * Turns an ask's raw input object into the wire shape: options become {value, label} objects (description only when
 * non-empty), checkboxes carry their resolved min and max, allow_text appears only when true, and empty placeholders
 * and zero mins on other types are dropped. Normalizing an already normalized input returns it unchanged.
 */
export function normalizeAskInput(raw: unknown, opts: { source: AskSource }): AskInputResult {
  const parsed = ToolAskInput.safeParse(raw);
  if (!parsed.success) return { ok: false, error: describeZodError(parsed.error, 'input') };
  return checkInput(parsed.data, opts.source, 'input.options');
}

/**
 * Validates a whole leo_chat_ask call (or agent ask route body): the question, the input (or top-level options, which
 * ask buttons), and timeout_s, or a resume that carries only message_id. With neither input nor options the ask is
 * free text.
 */
export function parseAskRequest(raw: unknown, opts: { source: AskSource }): AskRequestResult {
  const parsed = AskToolInput.safeParse(raw);
  if (!parsed.success)
    return { ok: false, error: describeZodError(parsed.error, '', opts.source === 'mcp' ? 'arguments' : 'body') };
  const req = parsed.data;

  if (req.message_id !== undefined) {
    const extra = (['question', 'input', 'options', 'timeout_s'] as const).find((k) => req[k] !== undefined);
    if (extra) return fail(`message_id: resuming an ask takes only message_id (drop ${extra})`);
    if (req.message_id.trim() === '') return fail('message_id: must not be empty');
    return { ok: true, request: { kind: 'resume', messageId: req.message_id } };
  }

  if (req.question === undefined) return fail('question: is required');
  if (req.question.trim() === '') return fail('question: must not be empty');
  const qLen = charCount(req.question);
  if (qLen > ASK_QUESTION_MAX_CHARS)
    return fail(`question: ${qLen} characters exceed the limit of ${ASK_QUESTION_MAX_CHARS}`);

  if (req.input !== undefined && req.options !== undefined)
    return fail('options: give options inside input, or top-level options without input, not both');

  let input: AskInputResult;
  if (req.input !== undefined) input = checkInput(req.input, opts.source, 'input.options');
  else if (req.options !== undefined)
    input = checkInput({ type: 'buttons', options: req.options }, opts.source, 'options');
  else input = { ok: true, input: { type: 'text' } };
  if (!input.ok) return input;

  const timeout = checkTimeout(req.timeout_s);
  if (!timeout.ok) return timeout;
  return {
    ok: true,
    request: { kind: 'ask', question: req.question, input: input.input, timeoutS: timeout.timeoutS },
  };
}

function checkInput(data: ToolAskInput, source: AskSource, optionsPath: string): AskInputResult {
  const { type } = data;
  const choice = type !== 'text';
  const raw = data.options ?? [];

  // An empty array on a text ask is what a model writes for "no options"; only real options contradict the type.
  if (!choice && raw.length > 0) return fail(`${optionsPath}: a text ask takes no options`);
  if (choice && raw.length === 0) return fail(`${optionsPath}: a ${type} ask needs at least one option`);
  if (raw.length > ASK_OPTIONS_MAX)
    return fail(`${optionsPath}: ${raw.length} options exceed the limit of ${ASK_OPTIONS_MAX}`);

  const options: AskOption[] = [];
  const firstIndex = new Map<string, number>();
  for (const [i, o] of raw.entries()) {
    const at = `${optionsPath}[${i}]`;
    const bare = typeof o === 'string';
    if (bare && source === 'api')
      return fail(`${at}: must be a {value, label} object (bare strings are accepted only as MCP tool input)`);
    const value = bare ? o : o.value;
    const label = bare ? o : o.label;
    const valueAt = bare ? at : `${at}.value`;
    const labelAt = bare ? at : `${at}.label`;
    if (value.trim() === '') return fail(`${valueAt}: must not be empty`);
    if (charCount(value) > ASK_VALUE_MAX_CHARS)
      return fail(`${valueAt}: ${charCount(value)} characters exceed the limit of ${ASK_VALUE_MAX_CHARS}`);
    if (label.trim() === '') return fail(`${labelAt}: must not be empty`);
    if (charCount(label) > ASK_LABEL_MAX_CHARS)
      return fail(`${labelAt}: ${charCount(label)} characters exceed the limit of ${ASK_LABEL_MAX_CHARS}`);
    const dup = firstIndex.get(value);
    if (dup !== undefined) return fail(`${valueAt}: "${value}" repeats the value of ${optionsPath}[${dup}]`);
    firstIndex.set(value, i);
    const option: AskOption = { value, label };
    const description = bare ? undefined : o.description;
    if (description) {
      if (charCount(description) > ASK_DESCRIPTION_MAX_CHARS)
        return fail(
          `${at}.description: ${charCount(description)} characters exceed the limit of ${ASK_DESCRIPTION_MAX_CHARS}`,
        );
      option.description = description;
    }
    options.push(option);
  }

  // allow_text: false on a text ask says nothing wrong, so only a true one is refused.
  if (data.allow_text === true && !choice)
    return fail('input.allow_text: a text ask is already free text; allow_text is for buttons, radio and checkboxes');

  const out: AskInput = { type };
  if (choice) out.options = options;
  if (data.allow_text === true) out.allow_text = true;

  if (type === 'checkboxes') {
    const min = data.min ?? 0;
    const max = data.max ?? options.length;
    if (min < 0) return fail(`input.min: ${min} is negative`);
    if (max < 1) return fail(`input.max: ${max} is less than 1`);
    if (max > options.length) return fail(`input.max: ${max} exceeds the ${optionCount(options.length)}`);
    if (min > max)
      return fail(
        data.max === undefined
          ? `input.min: ${min} exceeds the ${optionCount(options.length)}`
          : `input.min: ${min} is greater than input.max ${max}`,
      );
    out.min = min;
    out.max = max;
  } else {
    if (data.min !== undefined && data.min !== 0)
      return fail(`input.min: only checkboxes take min (got ${data.min} on a ${type} ask)`);
    if (data.max !== undefined) return fail(`input.max: only checkboxes take max (got ${data.max} on a ${type} ask)`);
  }

  if (data.placeholder) {
    const n = charCount(data.placeholder);
    if (n > ASK_PLACEHOLDER_MAX_CHARS)
      return fail(`input.placeholder: ${n} characters exceed the limit of ${ASK_PLACEHOLDER_MAX_CHARS}`);
    out.placeholder = data.placeholder;
  }
  return { ok: true, input: out };
}

function checkTimeout(
  timeoutS: number | null | undefined,
): { ok: true; timeoutS: number | null } | { ok: false; error: string } {
  if (timeoutS === undefined || timeoutS === null || timeoutS === 0) return { ok: true, timeoutS: null };
  if (!Number.isFinite(timeoutS)) return fail('timeout_s: must be a number of seconds');
  if (timeoutS < 0) return fail(`timeout_s: ${timeoutS} is negative (use 0 or omit it for no deadline)`);
  if (timeoutS > ASK_TIMEOUT_MAX_S) return fail(`timeout_s: ${timeoutS} exceeds the maximum of ${ASK_TIMEOUT_MAX_S}`);
  return { ok: true, timeoutS };
}

/**
 * Who is asking, which decides whether anyone could take a late answer. A persistent task's turn runs in its own
 * agent, so a late answer has somewhere to go only when that agent also owns the thread the ask posts into.
 */
export type AskOrigin =
  { kind: 'agent' } | { kind: 'oneshot_task' } | { kind: 'persistent_task'; ownerIsAsker: boolean };

export type AskDeadlineResult = { ok: true; deadlineMs: number | null } | { ok: false; error: string };

/**
 * How long after posting an ask expires, in ms, or null for never. Agents wait as long as it takes by default; an ask
 * nobody could receive a late answer for keeps 300 s unless timeout_s says otherwise.
 */
export function askDeadline(args: { timeout_s?: number | null; context: AskOrigin }): AskDeadlineResult {
  const timeout = checkTimeout(args.timeout_s);
  if (!timeout.ok) return timeout;
  if (timeout.timeoutS !== null) return { ok: true, deadlineMs: Math.round(timeout.timeoutS * 1000) };
  const unattended =
    args.context.kind === 'oneshot_task' || (args.context.kind === 'persistent_task' && !args.context.ownerIsAsker);
  return { ok: true, deadlineMs: unattended ? ASK_UNATTENDED_TIMEOUT_S * 1000 : null };
}

function optionCount(n: number): string {
  return n === 1 ? '1 option' : `${n} options`;
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
