// Codex's screen (measured on 0.171.0; test/fixtures/panes/codex-*.txt): the composer is the last `› ` line, with a
// footer under it (`<model> · <folder>`, then `← for agents · ? for shortcuts`). Its placeholder ("Ask Codex to do
// anything") is drawn from the first frame, while Codex is still loading and would lose an Enter; `← for agents`
// shows only once the session is up and only while the composer is empty, so it is the ready signal. Dialogs
// (folder trust, hooks review) are numbered menus whose highlighted entry is a `› 1.` line.
import { dialogQuestion, findMenu, yesNoKeys } from '../menu.js';
import { paneLines } from '../pane-lines.js';
import type { Screen } from '../screen.js';

/**
 * An approval dialog ("Would you like to run the following command?"): `Yes, proceed (y)`, the remembering yes, then
 * `No, and tell Codex what to do differently (esc)`.
 */
const PERMISSION_QUESTION = /^Would you like to /;
const PERMISSION_YES = /^Yes, proceed\b/;
const PERMISSION_NO = /^No\b/;
const COMPOSER = /^› (.*)$/;
const PLACEHOLDER = /^Ask Codex to do anything$/;
const READY_HINT = /← for agents/;
const MENU_ENTRY = /^[›\s]\s?\d+\.\s/;
/** Footer lines under the composer: the model and folder, the key hints, a blank line. */
const FOOTER = / · |for shortcuts|^\s*$/;

export function readCodexScreen(pane: string): Screen {
  const lines = paneLines(pane);
  const at = lines.findLastIndex((l) => COMPOSER.test(l));
  if (at >= 0 && !MENU_ENTRY.test(lines[at]!) && !MENU_ENTRY.test(lines[at + 1] ?? '')) {
    const rest = lines.slice(at + 1);
    const footerAt = rest.findIndex((l) => FOOTER.test(l));
    const continuation = (footerAt < 0 ? rest : rest.slice(0, footerAt)).map((l) => l.replace(/^ {2}/, ''));
    const text = [COMPOSER.exec(lines[at]!)![1]!, ...continuation].join('\n').trim();
    const ready = rest.some((l) => READY_HINT.test(l));
    if (PLACEHOLDER.test(text)) return ready ? { kind: 'input', text: '' } : { kind: 'starting' };
    return { kind: 'input', text };
  }
  const menu = findMenu(lines);
  if (!menu) return { kind: 'starting' };
  const question = dialogQuestion(lines, menu.at);
  const permission = PERMISSION_QUESTION.test(question) ? yesNoKeys(menu, PERMISSION_YES, PERMISSION_NO) : null;
  return { kind: 'dialog', question, options: menu.options, ...(permission ? { permission } : {}) };
}
