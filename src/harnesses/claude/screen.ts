// Claude Code's screen (measured on 2.1.328): the input box is the `❯` line(s) between the last two full-width rules,
// with a footer under it ("⏸ manual mode on · ? for shortcuts"). Dialogs (workspace trust, a tool's permission, API
// key approval) replace the box with a menu whose highlighted entry is a `❯` line that no rule pair encloses.
import { dialogQuestion, findMenu, stepToward, yesNoKeys } from '../menu.js';
import { paneLines } from '../pane-lines.js';
import type { Screen } from '../screen.js';

const RULE = /^─{20,}$/;
const TRUST_QUESTION = /Is this a project you created or one you trust\?/;
const TRUST_YES = 'Yes, I trust this folder';
/**
 * A tool's permission dialog ("Do you want to proceed?", "Do you want to create x.txt?"): `Yes` first, then the
 * remembering yeses, then `No`. The API-key question at start-up asks the same way and is not one.
 */
const PERMISSION_QUESTION = /^Do you want to (?!use this API key)/;
const PERMISSION_YES = /^Yes$/;
const PERMISSION_NO = /^No$/;
const PROMPT = /^❯ ?(.*)$/;
/** Hints Claude draws inside an empty box: they are not text anyone typed. */
const PLACEHOLDERS = [/^Press up to edit queued messages$/, /^Try "[^"]*"$/];
/** The box's footer is at most a couple of lines; more below the rule means the rules belong to something else. */
const MAX_FOOTER_LINES = 3;

export function readClaudeScreen(pane: string): Screen {
  const lines = paneLines(pane);
  const rules = lines.flatMap((l, i) => (RULE.test(l.trim()) ? [i] : []));
  const [top, bottom] = rules.slice(-2);
  if (top !== undefined && bottom !== undefined && lines.length - bottom - 1 <= MAX_FOOTER_LINES) {
    const first = PROMPT.exec(lines[top + 1] ?? '');
    if (first && bottom > top + 1) {
      const text = [first[1]!, ...lines.slice(top + 2, bottom).map((l) => l.replace(/^ {2}/, ''))].join('\n').trim();
      return { kind: 'input', text: PLACEHOLDERS.some((p) => p.test(text)) ? '' : text };
    }
  }
  const menu = findMenu(lines);
  if (!menu) return { kind: 'starting' };
  const question = dialogQuestion(lines, menu.at);
  const dialog = { kind: 'dialog' as const, question, options: menu.options };
  // Leo marks its agents' workspaces trusted in Claude's config before each start, but a Claude already running for
  // another agent can write its older copy of that file back over the mark in between; the answer is Leo's to give.
  const trust = menu.options.indexOf(TRUST_YES);
  if (TRUST_QUESTION.test(question) && trust >= 0) return { ...dialog, answer: stepToward(menu, trust) };
  const permission = PERMISSION_QUESTION.test(question) ? yesNoKeys(menu, PERMISSION_YES, PERMISSION_NO) : null;
  return permission ? { ...dialog, permission } : dialog;
}
