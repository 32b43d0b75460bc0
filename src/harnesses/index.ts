// HARNESSES: the harness table, one row per CLI Leo runs (docs/HARNESSES.md says how to add one).
import type { HarnessAdapter } from './adapter.js';
import { claude } from './claude/index.js';
import { codex } from './codex/index.js';
import { opencode } from './opencode/index.js';
import { shell } from './shell/index.js';
import type { Harness } from './types.js';
import type { TerminalKey } from '../wire/terminal.js';
import type { DecisionFormat } from '../wire/permission.js';
import { CLAUDE_DECISIONS } from './hook-decisions.js';
import type { ChatEngine } from '../core/chat-engine.js';

export const HARNESSES: Record<Harness, HarnessAdapter> = { claude, codex, opencode, shell };

/** The adapter of a harness named by a record or a payload (a string read from disk), or null for a name Leo lacks. */
export function adapterOf(harness: string | undefined): HarnessAdapter | null {
  return harness !== undefined && Object.hasOwn(HARNESSES, harness) ? HARNESSES[harness as Harness] : null;
}

/** The key that interrupts an agent's harness at its terminal; an agent CLI's Escape for a name Leo lacks. */
export function interruptKey(harness: string | undefined): TerminalKey {
  return adapterOf(harness)?.interruptKey ?? 'Escape';
}

/** How an agent's permission hook reads chat's answer; Claude's for a name Leo lacks (a script running Claude). */
export function decisionFormat(harness: string | undefined): DecisionFormat {
  return adapterOf(harness)?.decisions ?? CLAUDE_DECISIONS;
}

/**
 * The chat endpoint's engines by the name a template's `chat.engine` gives: the openai agent loop, which the caller
 * builds over the daemon's seams, and the one Claude's row brings.
 */
export function chatEngines(openai: ChatEngine): Record<ChatEngine['name'], ChatEngine> {
  return { openai, 'claude-cli': claude.chatEngine() };
}

/** A chat-enabled agent's engine: its template's `chat.engine`, else its harness's default, else openai. */
export function chatEngineFor(configured: ChatEngine['name'] | undefined, harness: string): ChatEngine['name'] {
  return configured ?? adapterOf(harness)?.defaultChatEngine ?? 'openai';
}
