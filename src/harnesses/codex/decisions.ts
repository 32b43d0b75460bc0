import type { DecisionFormat } from '../../wire/permission.js';
import { CLAUDE_DECISIONS } from '../hook-decisions.js';

/**
 * Codex's PermissionRequest hook reads Claude's decision JSON, but Codex draws its own approval dialog only after the
 * hook ends without a decision (measured on 0.171.0): so the hook is released at once and chat races the terminal.
 */
export const CODEX_DECISIONS: DecisionFormat = { ...CLAUDE_DECISIONS, dialogAfterHook: true };
