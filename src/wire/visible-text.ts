/**
 * What a permission prompt shows of the input its Allow answers for (issue 28): every character a person could not
 * see is drawn as its code point, and a long input is cut with a count of what is hidden. Pure; shared by the daemon
 * (summaries, push) and Leo Web (the card), so both judge "shown whole" the same way.
 */

/**
 * Characters that draw nothing or move other text: format characters (Cf: zero-width, bidi controls, tags, the BOM),
 * controls other than tab and newline (a carriage return rewrites a terminal line), line and paragraph separators,
 * variation selectors and the Hangul fillers that render blank.
 */
const INVISIBLE =
  /[\p{Cf}\p{Zl}\p{Zp}\u0000-\u0008\u000B-\u001F\u007F-\u009F\u115F\u1160\u3164\uFFA0\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/u;
const INVISIBLE_ALL = new RegExp(INVISIBLE.source, 'gu');

/** One invisible character as a person can read it, e.g. ⟨U+200B⟩. */
export function codePointMark(ch: string): string {
  return `⟨U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;
}

/** The text with each invisible character drawn as its code point. */
export function showInvisibles(s: string): string {
  return s.replace(INVISIBLE_ALL, codePointMark);
}

export function hasInvisibles(s: string): boolean {
  return INVISIBLE.test(s);
}

/** How much of a prompt's input the card shows before "show all": drawn characters and lines. */
export const PREVIEW_MAX_CHARS = 300;
export const PREVIEW_MAX_LINES = 8;

export interface Preview {
  /** The shown start of the text, invisibles drawn. */
  text: string;
  /** Characters (code points) of the original text left out; 0 when all of it is shown. */
  hidden: number;
  /** The text holds characters drawn as code points. */
  invisibles: boolean;
}

/** The start of the text a card shows at first: cut at whole characters once the drawn form passes the limits. */
export function preview(s: string, maxChars = PREVIEW_MAX_CHARS, maxLines = PREVIEW_MAX_LINES): Preview {
  const chars = [...s];
  let text = '';
  let drawn = 0;
  let lines = 1;
  let i = 0;
  for (; i < chars.length; i++) {
    const ch = chars[i]!;
    const shown = INVISIBLE.test(ch) ? codePointMark(ch) : ch;
    if (ch === '\n') lines++;
    if (drawn + shown.length > maxChars || lines > maxLines) break;
    drawn += shown.length;
    text += shown;
  }
  return { text, hidden: chars.length - i, invisibles: hasInvisibles(s) };
}

/** Whether Allow must wait until the whole text is open: the first view cuts it or it holds invisible characters. */
export function needsWholeView(s: string): boolean {
  const p = preview(s);
  return p.hidden > 0 || p.invisibles;
}

/**
 * The controls that reorder the text around them (embeddings, overrides, isolates and the marks): "Trojan Source"
 * characters, which make `exe.txt` read as `txt.exe` or a diff line read other than it runs. Narrower than INVISIBLE
 * so prose keeps its zero-width joiners (emoji sequences) and variation selectors.
 */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/** Agent text, ask labels and diff lines with each bidi control drawn as its code point, e.g. ⟨U+202E⟩. */
export function showBidiControls(s: string): string {
  return s.replace(BIDI_CONTROLS, codePointMark);
}
