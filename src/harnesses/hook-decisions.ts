// How Claude (and Codex and shell, which read the same JSON) read chat's answer to a PermissionRequest hook.
import type { DecisionFormat } from '../wire/permission.js';

/** The hook output that closes Claude's dialog with "allow", optionally replacing the tool's input. */
export function allowOutput(updatedInput?: Record<string, unknown>): string {
  return decisionOutput({ behavior: 'allow', ...(updatedInput ? { updatedInput } : {}) });
}

/** The hook output that refuses the tool; the message is what Claude reads as the reason. */
export function denyOutput(reason: string): string {
  const message = reason ? `Denied from Leo Chat: ${reason}` : 'Denied from Leo Chat';
  return decisionOutput({ behavior: 'deny', message });
}

function decisionOutput(decision: Record<string, unknown>): string {
  return JSON.stringify({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision } });
}

/**
 * Claude's suggestions, each kept for this session only: "Allow for this session" must not write the rule into the
 * project's settings, which a suggestion's own destination (localSettings) would.
 */
export function sessionPermissions(suggestions: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return suggestions.map((s) => ({ ...s, destination: 'session' }));
}

export const CLAUDE_DECISIONS: DecisionFormat = {
  allow: allowOutput,
  deny: denyOutput,
  allowSession: (updatedPermissions) => decisionOutput({ behavior: 'allow', updatedPermissions }),
};
