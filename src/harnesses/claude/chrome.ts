// Claude Code's furniture in a captured pane (claude 2.1.328, test/fixtures/panes/).
import { INTERRUPT_HINT, type Chrome } from '../chrome-parts.js';

export const claudeChrome: Chrome = {
  prompt: /^❯/,
  lines: [
    // The spinner (its verb is random, some hyphenated: `✢ Forging… (2s · ↓ 8 tokens)`, `✽ Fiddle-faddling…`) and
    // the end-of-turn line (`✻ Churned for 20s`).
    /^[·✢✳✶✻✽*]\s+\p{L}+(-\p{L}+)*(…|\s+for\s+\d)/u,
    INTERRUPT_HINT,
    /\? for shortcuts|shift\+tab to cycle|← for agents/,
    /^(⏸|⏵⏵?)\s/,
    // The banner: block-element logo lines (version, model, folder).
    /^[\u2580-\u259f]/,
    /^tmux focus-events off\b/,
    // A key hint under a running tool: `(ctrl+b ctrl+b (twice) to run in background)`.
    /^\((ctrl|shift|alt|esc|tab)\b.*\)$/i,
    /^…\s*\+\d+ lines?\b/,
    /^Esc to cancel\b|^Enter to confirm\b/,
  ],
};
