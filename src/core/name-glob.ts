// Pure. Appearance rules match agent names with a glob the owner writes in leo.yaml. A backtracking regex (what
// picomatch compiles to) can take hours on a pattern like `*a*a*a*a*a*a*a*c`, and the rule runs on every snapshot on
// the main thread; this matcher is O(name × pattern) per alternative whatever the pattern.
//
// Syntax: `*` any run of characters, `?` one character, `[abc]` `[a-z]` `[!a-z]` `[^a-z]` one character of (or not of)
// a set, `{a,b}` alternatives (may nest), `\x` a literal x. Agent names hold no `/` and never start with `.`, so the
// path rules of shell globs do not arise.

type Token =
  | { kind: 'star' }
  | { kind: 'one' }
  | { kind: 'char'; c: string }
  | { kind: 'set'; negated: boolean; ranges: [string, string][] };

/** Brace expansion is the only step that multiplies work; past this many alternatives a pattern is refused. */
const MAX_ALTERNATIVES = 64;
const MAX_PATTERN_LENGTH = 256;

/** Why a pattern cannot be used, or null when it can. The config schema refuses it with this message. */
export function globProblem(pattern: string): string | null {
  if (pattern.length > MAX_PATTERN_LENGTH) return `is longer than ${MAX_PATTERN_LENGTH} characters`;
  try {
    expandBraces(pattern);
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

/** A matcher for `pattern`. Throws on a pattern `globProblem` refuses. */
export function compileGlob(pattern: string): (name: string) => boolean {
  const alternatives = expandBraces(pattern).map(tokenize);
  return (name) => alternatives.some((tokens) => matchTokens(tokens, name));
}

/** Whether `name` matches `pattern`; a pattern that cannot be used matches nothing. */
export function globMatches(pattern: string, name: string): boolean {
  if (pattern.length > MAX_PATTERN_LENGTH) return false;
  try {
    return compileGlob(pattern)(name);
  } catch {
    return false;
  }
}

function expandBraces(pattern: string): string[] {
  const open = findUnescaped(pattern, '{', 0);
  if (open < 0) {
    if (findUnescaped(pattern, '}', 0) >= 0) throw new Error('has a "}" without its "{"');
    return [pattern];
  }
  // The matching close brace and the top-level commas between.
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      close = i;
      break;
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close < 0) throw new Error('has a "{" without its "}"');
  const head = pattern.slice(0, open);
  if (findUnescaped(head, '}', 0) >= 0) throw new Error('has a "}" without its "{"');
  const bounds = [open, ...commas, close];
  const parts: string[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) parts.push(pattern.slice(bounds[k]! + 1, bounds[k + 1]));
  const tails = expandBraces(pattern.slice(close + 1));
  const out: string[] = [];
  for (const part of parts) {
    for (const mid of expandBraces(part)) {
      for (const tail of tails) {
        out.push(head + mid + tail);
        if (out.length > MAX_ALTERNATIVES) throw new Error(`expands to more than ${MAX_ALTERNATIVES} alternatives`);
      }
    }
  }
  return out;
}

function findUnescaped(s: string, ch: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === ch) return i;
  }
  return -1;
}

function tokenize(pattern: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      // A run of stars matches what one does; collapsing keeps the matcher's work proportional to the pattern.
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'one' });
    else if (c === '\\' && i + 1 < pattern.length) tokens.push({ kind: 'char', c: pattern[++i]! });
    else if (c === '[') {
      const set = readSet(pattern, i);
      if (set) {
        tokens.push(set.token);
        i = set.end;
      } else tokens.push({ kind: 'char', c });
    } else tokens.push({ kind: 'char', c });
  }
  return tokens;
}

/** A `[...]` set starting at `start`, or null when unclosed (then `[` is literal, as in shells). */
function readSet(pattern: string, start: number): { token: Token; end: number } | null {
  let i = start + 1;
  const negated = pattern[i] === '!' || pattern[i] === '^';
  if (negated) i++;
  const ranges: [string, string][] = [];
  let first = true;
  while (i < pattern.length && (first || pattern[i] !== ']')) {
    first = false;
    let lo = pattern[i]!;
    if (lo === '\\' && i + 1 < pattern.length) lo = pattern[++i]!;
    let hi = lo;
    if (pattern[i + 1] === '-' && i + 2 < pattern.length && pattern[i + 2] !== ']') {
      hi = pattern[i + 2]!;
      if (hi === '\\' && i + 3 < pattern.length) hi = pattern[++i + 2]!;
      i += 2;
    }
    ranges.push([lo, hi]);
    i++;
  }
  if (i >= pattern.length) return null;
  return { token: { kind: 'set', negated, ranges }, end: i };
}

function matchOne(token: Exclude<Token, { kind: 'star' }>, c: string): boolean {
  if (token.kind === 'one') return true;
  if (token.kind === 'char') return token.c === c;
  const inSet = token.ranges.some(([lo, hi]) => lo <= c && c <= hi);
  return inSet !== token.negated;
}

/**
 * Greedy match remembering only the last star: when a later segment fails, that star takes one more character. An
 * earlier star never needs to retry, since the last one can absorb whatever it would have, so work is bounded by
 * name length × token count.
 */
function matchTokens(tokens: Token[], name: string): boolean {
  let t = 0;
  let n = 0;
  let starT = -1;
  let starN = 0;
  while (n < name.length) {
    const token = tokens[t];
    if (token?.kind === 'star') {
      starT = t++;
      starN = n;
    } else if (token && matchOne(token, name[n]!)) {
      t++;
      n++;
    } else if (starT >= 0) {
      t = starT + 1;
      n = ++starN;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}
