/**
 * The pane line behind current_action.detail: the last non-empty line of a captured pane that is not the harness's
 * own furniture (harnesses/chrome.ts), reduced to plain display text. Pure; the input is whatever an agent's harness
 * printed, so nothing in it is trusted.
 */
import type { Chrome } from '../harnesses/chrome-parts.js';
import { withoutChrome } from '../harnesses/chrome.js';

export const PANE_LINE_MAX = 120;

const ESC = 0x1b;
const BEL = 0x07;
const ST8 = 0x9c;

/** ESC ] (OSC), ESC P (DCS), ESC X (SOS), ESC ^ (PM), ESC _ (APC): strings that run until a terminator. */
const STRING_INTRODUCERS_7 = new Set([0x5d, 0x50, 0x58, 0x5e, 0x5f]);
/** Their 8-bit C1 forms. */
const STRING_INTRODUCERS_8 = new Set([0x9d, 0x90, 0x98, 0x9e, 0x9f]);
const CSI_8 = 0x9b;

/** Bidi embedding, override and isolate controls: invisible, and they reorder how the rest of the line displays. */
function isBidiControl(cp: number): boolean {
  return (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp === 0x200e || cp === 0x200f;
}

/**
 * Skips a CSI sequence's parameter and intermediate bytes and its final byte, starting after the introducer. A
 * sequence broken off by anything else ends where it broke, so the following text survives.
 */
function skipCsi(cps: number[], i: number): number {
  while (i < cps.length && cps[i]! >= 0x30 && cps[i]! <= 0x3f) i++;
  while (i < cps.length && cps[i]! >= 0x20 && cps[i]! <= 0x2f) i++;
  if (i < cps.length && cps[i]! >= 0x40 && cps[i]! <= 0x7e) i++;
  return i;
}

/**
 * Skips a control string up to and including its terminator (BEL, ESC \ or 8-bit ST). One never terminated stops at
 * the end of its line: a stray introducer must not swallow the rest of the pane.
 */
function skipString(cps: number[], i: number): number {
  while (i < cps.length) {
    const cp = cps[i]!;
    if (cp === BEL || cp === ST8) return i + 1;
    if (cp === ESC && cps[i + 1] === 0x5c) return i + 2;
    if (cp === 0x0a || cp === 0x0d) return i;
    i++;
  }
  return i;
}

/** Removes escape sequences and control characters; line breaks (LF, CR, CRLF) come back as LF, tabs as spaces. */
export function stripTerminalControls(text: string): string {
  const cps = Array.from(text, (c) => c.codePointAt(0)!);
  const out: number[] = [];
  let i = 0;
  while (i < cps.length) {
    const cp = cps[i]!;
    if (cp === ESC) {
      const next = cps[i + 1];
      if (next === undefined) i += 1;
      else if (next === 0x5b) i = skipCsi(cps, i + 2);
      else if (STRING_INTRODUCERS_7.has(next)) i = skipString(cps, i + 2);
      else if (next >= 0x20 && next <= 0x2f) {
        // nF sequences such as ESC ( B: intermediates, then one final byte.
        i += 2;
        while (i < cps.length && cps[i]! >= 0x20 && cps[i]! <= 0x2f) i++;
        if (i < cps.length && cps[i]! >= 0x30 && cps[i]! <= 0x7e) i++;
      } else if (next >= 0x30 && next <= 0x7e) i += 2;
      else i += 1;
      continue;
    }
    if (cp === CSI_8) {
      i = skipCsi(cps, i + 1);
      continue;
    }
    if (STRING_INTRODUCERS_8.has(cp)) {
      i = skipString(cps, i + 1);
      continue;
    }
    i++;
    if (cp === 0x0d) {
      if (cps[i] === 0x0a) i++;
      out.push(0x0a);
    } else if (cp === 0x0a) out.push(0x0a);
    else if (cp === 0x09) out.push(0x20);
    else if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || isBidiControl(cp)) continue;
    else out.push(cp);
  }
  // In slices: spreading a whole large capture into one call would overflow the argument limit.
  let result = '';
  for (let k = 0; k < out.length; k += 8192) result += String.fromCodePoint(...out.slice(k, k + 8192));
  return result;
}

/** The first `max` code points, never splitting a surrogate pair. */
export function truncateCodePoints(text: string, max: number): string {
  let count = 0;
  let end = 0;
  for (const ch of text) {
    if (count === max) return text.slice(0, end);
    count++;
    end += ch.length;
  }
  return text;
}

/**
 * The last line with any visible text that is not the harness's furniture (`chrome`), sanitized, trimmed and cut to
 * 120 code points; null when there is none.
 */
export function lastPaneLine(captured: string, chrome?: Chrome): string | null {
  const lines = withoutChrome(chrome, stripTerminalControls(captured).split('\n'));
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (line !== '') return truncateCodePoints(line, PANE_LINE_MAX).trimEnd();
  }
  return null;
}
