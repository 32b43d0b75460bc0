import type { z } from 'zod';
import { LlmSettings } from '../wire/sessions.js';

/**
 * LLM-parameter overrides: the whitelist shared by `POST /agents/:name/chat` (`overrides`, per call) and
 * `PATCH /sessions/:id` (the body itself, per session), and the resolver that layers them over the agent's defaults.
 */

/**
 * A 400 `VALIDATION_ERROR` as plain data, so these parsers stay free of HTTP; the route turns it into an `HttpError`
 * with `details`. Lives here because both the chat body and `PATCH /sessions/:id` produce it.
 */
export interface ValidationFailure {
  ok: false;
  code: 'VALIDATION_ERROR';
  message: string;
  details: { field: string };
}
export type Validated<T> = { ok: true; value: T } | ValidationFailure;

export function invalid(field: string, problem: string): ValidationFailure {
  return { ok: false, code: 'VALIDATION_ERROR', message: `${field}: ${problem}`, details: { field } };
}

/** `overrides` + `top_p` → `overrides.top_p`; PATCH passes an empty prefix and gets `top_p`. */
const fieldPath = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

const ACCEPTED = Object.keys(LlmSettings.shape) as (keyof LlmSettings)[];
const isAccepted = (key: string): key is keyof LlmSettings => (ACCEPTED as string[]).includes(key);
const LEGACY = new Set(['effort', 'thinking']);
const AGENT_IDENTITY = new Set(['tools', 'permissions', 'mcpServers', 'modes', 'skills', 'disallowedTools']);

function refusal(key: string): string {
  if (LEGACY.has(key)) return 'no longer accepted; use reasoning: { effort, max_tokens? }';
  if (AGENT_IDENTITY.has(key)) return "part of the agent's identity, which cannot be overridden";
  if (key === 'top_p') return 'not supported; use temperature';
  return `unknown field (accepted: ${ACCEPTED.join(', ')})`;
}

function issueField(prefix: string, issue: z.core.$ZodIssue): string {
  const segments = issue.path.map(String);
  // An unrecognized key is named itself, not the object holding it.
  if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) segments.push(issue.keys[0]);
  return segments.reduce(fieldPath, prefix);
}

/**
 * A zod failure as a `ValidationFailure` with fields under `prefix`. An unknown key is reported before any other
 * fault, since a misspelt key is usually why a required one looks missing.
 */
function zodFailure(prefix: string, error: z.ZodError): ValidationFailure {
  const issue = error.issues.find((i) => i.code === 'unrecognized_keys') ?? error.issues[0]!;
  return invalid(issueField(prefix, issue), issue.message);
}

/**
 * Validates an overrides object against the `LlmSettings` whitelist. Refused keys are checked before value types so
 * that the answer names the refused key with a reason (legacy reasoning keys, agent identity, `top_p`) rather than
 * zod's generic unknown-key message; the bare-string `reasoning` gets its own hint for the same reason.
 */
export function parseOverrides(value: unknown, path = 'overrides'): Validated<LlmSettings> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(path || 'body', 'must be an object');
  }
  for (const key of Object.keys(value)) {
    if (!isAccepted(key)) return invalid(fieldPath(path, key), refusal(key));
  }
  if (typeof (value as { reasoning?: unknown }).reasoning === 'string') {
    return invalid(
      fieldPath(path, 'reasoning'),
      'must be an object { effort, max_tokens? }; the bare-string form is no longer accepted',
    );
  }
  const result = LlmSettings.safeParse(value);
  return result.success ? { ok: true, value: result.data } : zodFailure(path, result.error);
}

type Layer = LlmSettings | null | undefined;

/**
 * Effective settings, field by field: per call > session > agent. `reasoning` is taken whole from the highest layer
 * that sets it, never merged key by key: a `max_tokens` budget chosen for one effort should not ride along under
 * another layer's effort.
 */
export function resolveSettings(
  perCall: Layer,
  session: Layer,
  agent: LlmSettings & { model: string },
): LlmSettings & { model: string };
export function resolveSettings(perCall: Layer, session: Layer, agent: Layer): LlmSettings;
export function resolveSettings(perCall: Layer, session: Layer, agent: Layer): LlmSettings {
  const entries = ACCEPTED.map((key) => [key, perCall?.[key] ?? session?.[key] ?? agent?.[key]] as const);
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined)) as LlmSettings;
}
