// opencode's furniture in a captured pane (opencode 1.18.33, test/fixtures/panes/).
import { INTERRUPT_HINT, type Chrome } from '../chrome-parts.js';

export const opencodeChrome: Chrome = {
  inputBoxBottom: /^╹▀/,
  inputBoxSide: /^┃/,
  // The session sidebar's `Context` heading (title, tokens, MCP and LSP status sit in the same column).
  sidebarAnchor: /\s{4}(Context)\s*$/,
  leadingBorder: /^┃\s*/,
  lines: [
    INTERRUPT_HINT,
    // The message footer: `▣  Build · gpt-test · 20.6s`.
    /^▣\s/,
    /\bctrl\+p commands\b/,
  ],
};
