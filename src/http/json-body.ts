/**
 * What a JSON request body must be before it is parsed at all. Pure.
 *
 * - UTF-8, strictly: a lenient decode turns stray bytes into U+FFFD, so a client's broken encoding would be stored as
 *   silently altered text instead of being refused.
 * - At most MAX_JSON_DEPTH levels of arrays and objects: JSON.parse copes with any depth, but every recursive walk
 *   after it (YAML and JSON serializers, loggers, schema validators) can overflow the stack on a body that is nothing
 *   but brackets. No real request nests anywhere near this deep.
 */
export const MAX_JSON_DEPTH = 64;

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export type JsonText = { ok: true; text: string } | { ok: false; error: string };

export function jsonBodyText(body: Buffer): JsonText {
  let text: string;
  try {
    text = strictUtf8.decode(body);
  } catch {
    return { ok: false, error: 'request body is not valid UTF-8' };
  }
  if (nestingExceeds(text, MAX_JSON_DEPTH))
    return { ok: false, error: `JSON body nests deeper than ${MAX_JSON_DEPTH} levels` };
  return { ok: true, text };
}

/** Whether brackets outside strings nest deeper than `max`. */
export function nestingExceeds(text: string, max: number): boolean {
  // Most bodies hold fewer opening brackets than the limit, which settles it without tracking strings.
  if (openingBrackets(text, max) <= max) return false;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Counts `{` and `[` anywhere, stopping once past `max`. */
function openingBrackets(text: string, max: number): number {
  let n = 0;
  for (const bracket of ['{', '[']) {
    for (let i = text.indexOf(bracket); i >= 0 && n <= max; i = text.indexOf(bracket, i + 1)) n++;
  }
  return n;
}
