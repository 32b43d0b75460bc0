/**
 * A harness TUI's own furniture in a captured pane — its input box and footer, status and spinner lines, banner,
 * sidebar, key hints — told apart from what the agent is doing, so current_action.detail shows the agent's work
 * rather than Claude's `⏸ manual mode on · ? for shortcuts` on every sample. Pure, over sanitized pane lines. What is
 * furniture was read off real captures of the pinned CLIs (test/fixtures/panes/): a new CLI version may draw other
 * lines, and the worst that does is a less useful detail.
 */
import type { Harness } from '../config/schema.js';

interface Chrome {
  /**
   * Starts a line the user typed: the harness's input box (or a dialog's selected option) and every echo of a sent
   * prompt. The last such line is the input area: it and everything below it (the footer) are furniture.
   */
  prompt?: RegExp;
  /** Furniture lines wherever they are (tested on the trimmed line). */
  lines: RegExp[];
  /** A banner: this line and the ones up to the next blank line. */
  banner?: RegExp;
  /** The bordered box the input sits in (its top-to-bottom lines end at `inputBoxBottom`), and everything below. */
  inputBoxBottom?: RegExp;
  inputBoxSide?: RegExp;
  /** A sidebar's column, found from one of its lines; everything right of it is cut from every line. */
  sidebarAnchor?: RegExp;
  /** A border in front of a line's text, removed from what is shown. */
  leadingBorder?: RegExp;
}

/** Lines without a letter or a digit: rules, box borders, logos, a bare bullet or spinner frame. */
const NO_TEXT = /^[^\p{L}\p{N}]*$/u;
/** A key hint anywhere in the line; no agent prints these while working. */
const INTERRUPT_HINT = /\besc to interrupt\b|\besc interrupt\b/i;

const CHROME: Partial<Record<Harness, Chrome>> = {
  claude: {
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
  },
  codex: {
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
  },
  opencode: {
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
  },
};

/**
 * The pane's lines with the harness's furniture blanked (a sidebar cut off, a border dropped), index for index. A
 * harness without known furniture (`shell`, or none given) gets its lines back unchanged.
 */
export function withoutChrome(harness: Harness | undefined, lines: readonly string[]): string[] {
  const c = harness ? CHROME[harness] : undefined;
  if (!c) return [...lines];
  let out = c.sidebarAnchor ? cutSidebar(lines, c.sidebarAnchor) : [...lines];
  const trimmed = out.map((l) => l.trim());
  const chrome = new Array<boolean>(out.length).fill(false);
  const from = inputAreaStart(c, trimmed);
  for (let i = from; i < out.length; i++) chrome[i] = true;
  if (c.banner) {
    const at = trimmed.findIndex((l) => c.banner!.test(l));
    for (let i = at; at >= 0 && i < out.length && trimmed[i] !== ''; i++) chrome[i] = true;
  }
  out = out.map((line, i) => {
    const text = c.leadingBorder ? trimmed[i]!.replace(c.leadingBorder, '') : trimmed[i]!;
    const furniture =
      chrome[i] || NO_TEXT.test(text) || (c.prompt?.test(text) ?? false) || c.lines.some((r) => r.test(text));
    return furniture ? '' : text;
  });
  return out;
}

/** Where the input area begins (`lines.length` when there is none): from there down everything is furniture. */
function inputAreaStart(c: Chrome, trimmed: readonly string[]): number {
  if (c.prompt) {
    for (let i = trimmed.length - 1; i >= 0; i--) if (c.prompt.test(trimmed[i]!)) return i;
  }
  if (c.inputBoxBottom && c.inputBoxSide) {
    for (let i = trimmed.length - 1; i >= 0; i--) {
      if (!c.inputBoxBottom.test(trimmed[i]!)) continue;
      let top = i;
      while (top > 0 && c.inputBoxSide.test(trimmed[top - 1]!)) top--;
      return top;
    }
  }
  return trimmed.length;
}

/**
 * Cuts every line at the sidebar's column, found where `anchor` (a heading after a wide gap) starts. Only where the
 * sidebar is padded off from the main column: a line with text running into that column is left whole.
 */
function cutSidebar(lines: readonly string[], anchor: RegExp): string[] {
  let column = -1;
  for (const line of lines) {
    const m = anchor.exec(line);
    if (m) {
      column = m.index + m[0].indexOf(m[1]!);
      break;
    }
  }
  if (column < 0) return [...lines];
  return lines.map((line) =>
    /^\s*$/.test(line.slice(Math.max(0, column - 2), column)) ? line.slice(0, column) : line,
  );
}
