// Codex's furniture in a captured pane (codex 0.171.0, test/fixtures/panes/).
import { INTERRUPT_HINT, type Chrome } from '../chrome-parts.js';

export const codexChrome: Chrome = {
  prompt: /^›/,
  // `>_ OpenAI Codex (v0.171.0)` and the folder (or `loading`) under it.
  banner: /^>_ OpenAI Codex\b/,
  lines: [
    // The status line: `• Working (3s • esc to interrupt) · 1 background terminal running · …`.
    INTERRUPT_HINT,
    /^[•◦]?\s*Worked for \d/,
    /\? for shortcuts|← for agents/,
    /^enter (continue|confirm)\b/i,
  ],
};
