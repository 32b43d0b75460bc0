// A selection menu in a terminal UI ("❯ 1. Yes" / "  2. No"): the shape every harness's dialogs share, so a dialog can
// be described in a thread note without knowing each one's words.

import type { PermissionKeys } from './screen.js';

/** `❯ No, exit`, `› 1. Yes`, `> Allow once`: the highlighted entry of a menu. */
const CURSOR = /^(\s*[❯›>▶]\s+)(\S.*)$/;

export interface Menu {
  /** Index of the first entry's line. */
  at: number;
  options: string[];
  /** Which option is highlighted. */
  selected: number;
}

/** The keys that move a menu's highlight from `menu.selected` to option `to` and choose it. */
export function choose(menu: Pick<Menu, 'selected'>, to: number): string[] {
  const steps = to - menu.selected;
  return [...Array<string>(Math.abs(steps)).fill(steps > 0 ? 'Down' : 'Up'), 'Enter'];
}

/**
 * The one key that brings a menu's highlight a step nearer option `to`, or Enter once it is there. A TUI busy starting
 * can read Down and Enter as one chunk and take the Enter on the old highlight ("No, exit"); a key per look, each
 * pressed on the screen it was read from, cannot choose anything but `to`.
 */
export function stepToward(menu: Pick<Menu, 'selected'>, to: number): string[] {
  if (to === menu.selected) return ['Enter'];
  return [to > menu.selected ? 'Down' : 'Up'];
}

/**
 * The keys that allow and deny a permission dialog: its plain yes (the first option starting with `yes`, not one
 * that also remembers the answer) and its no. Null when the menu has no such pair: then it is no permission dialog.
 */
export function yesNoKeys(menu: Menu, yes: RegExp, no: RegExp): PermissionKeys | null {
  const allow = menu.options.findIndex((o) => yes.test(o));
  const deny = menu.options.findIndex((o) => no.test(o));
  return allow < 0 || deny < 0 ? null : { allow: choose(menu, allow), deny: choose(menu, deny) };
}

/**
 * The lowest highlighted menu entry at or after line `from`, with the entries around it: the lines whose text starts
 * in the same column as the highlighted one's (the question above a menu is indented less). A lone entry is not a
 * menu: an echoed prompt (`❯ fix the tests`) looks like one.
 */
export function findMenu(lines: readonly string[], from = 0): Menu | null {
  for (let i = lines.length - 1; i >= from; i--) {
    const m = CURSOR.exec(lines[i]!);
    if (!m) continue;
    const column = [...m[1]!].length;
    const entry = (line: string | undefined) =>
      line !== undefined &&
      !CURSOR.test(line) &&
      /^\s*$/.test([...line].slice(0, column).join('')) &&
      /^\S/.test([...line].slice(column).join(''));
    const options = [m[2]!.trim()];
    for (let j = i - 1; j >= from && entry(lines[j]); j--) options.unshift(lines[j]!.trim());
    for (let j = i + 1; entry(lines[j]); j++) options.push(lines[j]!.trim());
    if (options.length < 2) continue;
    const selected = options.indexOf(m[2]!.trim());
    return { at: i - selected, options: options.map(stripNumber), selected };
  }
  return null;
}

/** The question a dialog asks: the last sentence ending in "?" above its menu, else its first line of text. */
export function dialogQuestion(lines: readonly string[], menuAt: number): string {
  for (let i = menuAt - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    const q = line.lastIndexOf('?');
    if (q < 0) continue;
    const sentences = line.slice(0, q + 1).split(/(?<=[.!?:])\s+/);
    return sentences[sentences.length - 1]!;
  }
  return lines.find((l) => l.trim() !== '')?.trim() ?? '';
}

function stripNumber(option: string): string {
  return option.replace(/^\d+\.\s+/, '');
}
