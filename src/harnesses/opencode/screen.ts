// opencode's screen (measured on 1.18.33; test/fixtures/panes/opencode-*.txt): the prompt box is a column of `┃`
// lines closed by a `╹▀▀▀…` line, its last line naming the agent and model ("Build · gpt-test"), with the key hints
// (`tab agents  ctrl+p commands`) under it once the TUI is up. The box can sit beside a sidebar, so each line is
// read only within the box's own columns. An empty box shows a placeholder ("Ask anything… …") on the start screen,
// where the box sits under the block-letter logo; the first submit swaps that screen for the session view.
import { dialogQuestion, findMenu } from '../menu.js';
import { paneLines } from '../pane-lines.js';
import type { Screen } from '../screen.js';

const BOX_BOTTOM = /^(\s*)╹(▀+)/;
const PLACEHOLDER = /^Ask anything…/;
const AGENT_LINE = /^\S+ · \S/;
const HINTS = /ctrl\+p commands|tab agents/;
/** The logo's bottom row ("o", "p" with its descender, "e"), two blank lines above the start screen's box. */
const LOGO = /▀▀▀▀ █▀▀▀ ▀▀▀▀/;

export function readOpencodeScreen(pane: string): Screen {
  const lines = paneLines(pane).map((l) => [...l]);
  const bottom = lines.findLastIndex((l) => BOX_BOTTOM.test(l.join('')));
  if (
    bottom >= 0 &&
    HINTS.test(
      lines
        .slice(bottom + 1)
        .map((l) => l.join(''))
        .join('\n'),
    )
  ) {
    const m = BOX_BOTTOM.exec(lines[bottom]!.join(''))!;
    const col = [...m[1]!].length;
    const end = col + 1 + m[2]!.length;
    const cell = (i: number) =>
      lines[i]?.[col] === '┃'
        ? lines[i]!.slice(col + 1, end)
            .join('')
            .trim()
        : null;
    // The box is a padding line, the input, a padding line and the agent line: the input is the run of lines that
    // ends two above the agent line. Reading further up would take in the message just sent, which the session view
    // draws in the same kind of `┃` block right above the box.
    const agentAt = AGENT_LINE.test(cell(bottom - 1) ?? '') ? bottom - 1 : bottom;
    const said: string[] = [];
    for (let i = agentAt - 2; cell(i); i--) said.unshift(cell(i)!);
    const text = said.join('\n');
    let top = bottom;
    while (cell(top - 1) !== null) top--;
    const home = lines.slice(Math.max(0, top - 4), top).some((l) => LOGO.test(l.join('')));
    return { kind: 'input', text: PLACEHOLDER.test(text) ? '' : text, ...(home ? { replacedOnSubmit: true } : {}) };
  }
  const plain = lines.map((l) => l.join(''));
  const menu = findMenu(plain);
  if (menu) return { kind: 'dialog', question: dialogQuestion(plain, menu.at), options: menu.options };
  return { kind: 'starting' };
}
