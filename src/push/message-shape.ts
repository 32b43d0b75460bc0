import { z } from 'zod';

/**
 * The chat Message wire shape (leo-chat.md, "API"), held here until the chat module owns it: push builds its records
 * from exactly what the API and events carry, so the two cannot drift. Cross-field rules the spec states (deadline
 * only on an ask that has one, closed_reason only on an expired ask and never on a permission prompt, state empty on
 * outbound posts) are the writer's to keep; they are not refinements here so that the chat module can `.extend()`.
 */

export const MessageDirection = z.enum(['in', 'out']);
export type MessageDirection = z.infer<typeof MessageDirection>;

export const MessageKind = z.enum(['text', 'voice', 'file', 'task', 'ask', 'permission', 'system']);
export type MessageKind = z.infer<typeof MessageKind>;

/** '' on outbound posts; inbound pending|delivered|failed; ask and permission open|answered|expired. */
export const MessageState = z.enum(['', 'pending', 'delivered', 'failed', 'open', 'answered', 'expired']);
export type MessageState = z.infer<typeof MessageState>;

export const ClosedReason = z.enum(['timeout', 'withdrawn', 'agent_gone', 'dismissed']);
export type ClosedReason = z.infer<typeof ClosedReason>;

/** The spec names these input types; questions is built by the daemon for AskUserQuestion, never asked for. */
export const InputType = z.enum(['buttons', 'radio', 'checkboxes', 'text', 'questions']);
export type InputType = z.infer<typeof InputType>;

/** On the wire options are always objects; description is omitted when empty. */
export const AskOption = z.object({
  value: z.string(),
  label: z.string(),
  description: z.string().min(1).optional(),
});
export type AskOption = z.infer<typeof AskOption>;

/** One question of a questions card; ids are q1..qN by position, value equals label, allow_text is always true. */
export const Question = z.object({
  id: z.string(),
  header: z.string(),
  question: z.string(),
  multi: z.boolean(),
  allow_text: z.boolean(),
  options: z.array(AskOption),
});
export type Question = z.infer<typeof Question>;

export const AskInput = z.object({
  type: InputType,
  options: z.array(AskOption).optional(),
  allow_text: z.boolean().optional(),
  min: z.number().int().optional(),
  max: z.number().int().optional(),
  placeholder: z.string().optional(),
  questions: z.array(Question).optional(),
});
export type AskInput = z.infer<typeof AskInput>;

export const QuestionAnswer = z.object({ values: z.array(z.string()), text: z.string() });
export type QuestionAnswer = z.infer<typeof QuestionAnswer>;

/** answers (keyed by question id) only on a questions card answered from chat. */
export const Answer = z.object({
  values: z.array(z.string()),
  text: z.string(),
  answers: z.record(z.string(), QuestionAnswer).optional(),
});
export type Answer = z.infer<typeof Answer>;

export const Permission = z.object({ tool: z.string(), summary: z.string() });
export type Permission = z.infer<typeof Permission>;

/** available turns false when the file is pruned (after 90 days); the row stays. */
export const Attachment = z.object({
  id: z.string(),
  filename: z.string(),
  mime: z.string(),
  bytes: z.number().int().nonnegative(),
  available: z.boolean(),
});
export type Attachment = z.infer<typeof Attachment>;

export const Message = z.object({
  id: z.string().min(1),
  agent: z.string().min(1),
  direction: MessageDirection,
  kind: MessageKind,
  text: z.string(),
  /** client:<name> on a message an API client posted; absent on everything the agent wrote. */
  sender: z
    .string()
    .regex(/^client:.+/)
    .optional(),
  transcript: z.string().optional(),
  reply_to: z.string().optional(),
  task: z.string().optional(),
  run_id: z.string().optional(),
  state: MessageState,
  answer: Answer.optional(),
  input: AskInput.optional(),
  permission: Permission.optional(),
  attachments: z.array(Attachment),
  // The spec gives ts no format; the daemon writes RFC3339 like every other time it serves.
  ts: z.string().min(1),
  deadline: z.iso.datetime({ offset: true }).optional(),
  closed_reason: ClosedReason.optional(),
});
export type Message = z.infer<typeof Message>;
