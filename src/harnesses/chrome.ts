/**
 * A harness TUI's own furniture in a captured pane — its input box and footer, status and spinner lines, banner,
 * sidebar, key hints — told apart from what the agent is doing, so current_action.detail shows the agent's work
 * rather than Claude's `⏸ manual mode on · ? for shortcuts` on every sample. Pure, over sanitized pane lines. What is
 * furniture was read off real captures of the pinned CLIs (test/fixtures/panes/): a new CLI version may draw other
 * lines, and the worst that does is a less useful detail.
 */
import type { Chrome } from './chrome-parts.js';

/** Lines without a letter or a digit: rules, box borders, logos, a bare bullet or spinner frame. */
const NO_TEXT = /^[^\p{L}\p{N}]*$/u;

/**
 * The pane's lines with a harness's furniture (its adapter's `chrome`) blanked (a sidebar cut off, a border dropped),
 * index for index. Without known furniture (`shell`, or none given) the lines come back unchanged. It takes the
 * furniture, not the harness, so the pool thread's sweep loads no adapter: they bring zod, ~10 MB a thread.
 */
export function withoutChrome(c: Chrome | undefined, lines: readonly string[]): string[] {
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
