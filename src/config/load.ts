// Parsing and validation of leo.yaml. parseConfig is pure; loadConfigFile adds file I/O.
import { readFile, stat } from 'node:fs/promises';
import { Alias, LineCounter, isMap, isPair, isScalar, isSeq, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { buildConfigSchema, type ChatEngineFor, type Config } from './schema.js';

export interface ParseOptions {
  /** Name used as the prefix of every message, e.g. "leo.yaml" or the full path. */
  file: string;
  /** Home directory for `~` expansion in path fields. */
  home: string;
  /** The harness table's chat engine lookup, for the templates' chat checks (BuildOptions says which). */
  chatEngineFor?: ChatEngineFor;
}

export type ParseResult =
  { ok: true; config: Config; warnings: string[] } | { ok: false; errors: string[]; warnings: string[] };

type PathSeg = PropertyKey;

/** Renders a zod path as a dotted key: templates.foo.model, appearance_rules[0].emoji */
export function formatKeyPath(segs: readonly PathSeg[]): string {
  let out = '';
  for (const seg of segs) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out;
}

function describeValue(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return JSON.stringify(v);
  return `${typeof v} ${String(v)}`;
}

/** Concise messages for the common issue kinds; everything else keeps zod's text. */
const errorMap: z.core.$ZodErrorMap = (iss) => {
  switch (iss.code) {
    case 'invalid_type':
      if (iss.input === undefined) return 'required';
      return `expected ${iss.expected === 'object' || iss.expected === 'record' ? 'a mapping' : iss.expected === 'array' ? 'a list' : iss.expected}, got ${describeValue(iss.input)}`;
    case 'invalid_value':
      return `expected one of ${iss.values.map((v) => String(v)).join(', ')}, got ${describeValue(iss.input)}`;
    case 'too_small':
      if (iss.origin === 'number')
        return `must be ${iss.inclusive === false ? '>' : '>='} ${String(iss.minimum)}, got ${describeValue(iss.input)}`;
      return undefined;
    case 'too_big':
      if (iss.origin === 'number')
        return `must be ${iss.inclusive === false ? '<' : '<='} ${String(iss.maximum)}, got ${describeValue(iss.input)}`;
      return undefined;
    default:
      return undefined;
  }
};

class Locator {
  constructor(
    private readonly doc: Document,
    private readonly lc: LineCounter,
  ) {}

  private lineOf(node: { range?: [number, number, number] | null } | null | undefined): number | undefined {
    const start = node?.range?.[0];
    return start === undefined ? undefined : this.lc.linePos(start).line;
  }

  /**
   * Line of the YAML node at `segs`. For a mapping entry this is the line of its key (so a
   * nested block reports where it starts). Falls back to the nearest existing parent.
   */
  line(segs: readonly PathSeg[]): number {
    let node: unknown = this.doc.contents;
    let best = this.lineOf(this.doc.contents as Node | null) ?? 1;
    for (const seg of segs) {
      if (node instanceof Alias) node = node.resolve(this.doc);
      if (isMap(node)) {
        const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        best = this.lineOf(pair.key as Node) ?? this.lineOf(pair.value as Node | null) ?? best;
        node = pair.value;
      } else if (isSeq(node) && typeof seg === 'number') {
        const item = node.items[seg];
        if (item === undefined) break;
        best = this.lineOf(item as Node) ?? best;
        node = item;
      } else {
        break;
      }
    }
    return best;
  }
}

function getAt(root: unknown, segs: readonly PathSeg[]): unknown {
  let cur = root;
  for (const seg of segs) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[seg];
  }
  return cur;
}

function firstLine(msg: string): string {
  const line = msg.split('\n', 1)[0]?.trim() ?? msg;
  // yaml's prettyErrors appends " at line N, column M:"; the line is already in our prefix.
  return line.replace(/ at line \d+, column \d+:?$/, '');
}

function issueMessage(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_key') {
    const key = issue.path[issue.path.length - 1];
    const inner = issue.issues[0]?.message ?? 'invalid';
    return `invalid name ${JSON.stringify(String(key))}: ${inner}`;
  }
  return issue.message;
}

const MAX_STRIP_PASSES = 20;

/**
 * Parses and validates leo.yaml text. Unknown keys are warnings (stripped before validation);
 * everything else is an error naming the dotted key and line: `leo.yaml:12: web.listen: ...`.
 */
export function parseConfig(text: string, opts: ParseOptions): ParseResult {
  const { file } = opts;
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true });
  const warnings: string[] = [];

  const lineAt = (pos: readonly [number, number] | undefined, linePos?: readonly { line: number }[]): number =>
    linePos?.[0]?.line ?? (pos ? lc.linePos(pos[0]).line : 1);

  if (doc.errors.length > 0) {
    return {
      ok: false,
      errors: doc.errors.map((e) => `${file}:${lineAt(e.pos, e.linePos)}: YAML syntax error: ${firstLine(e.message)}`),
      warnings,
    };
  }
  for (const w of doc.warnings) warnings.push(`${file}:${lineAt(w.pos, w.linePos)}: YAML: ${firstLine(w.message)}`);

  const contents = doc.contents;
  // An empty document ("---", or only comments) is an empty config.
  const empty = contents === null || (isScalar(contents) && contents.value === null);
  if (!empty && !isMap(contents)) {
    const what = isSeq(contents) ? 'a list' : 'a scalar';
    const line = contents?.range ? lc.linePos(contents.range[0]).line : 1;
    return { ok: false, errors: [`${file}:${line}: top level must be a mapping of sections, got ${what}`], warnings };
  }

  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: 1000 }) ?? {};
  } catch (e) {
    return { ok: false, errors: [`${file}:1: ${(e as Error).message}`], warnings };
  }

  const locator = new Locator(doc, lc);
  const schema = buildConfigSchema({ home: opts.home, chatEngineFor: opts.chatEngineFor });
  const seenUnknown = new Set<string>();

  for (let pass = 0; pass < MAX_STRIP_PASSES; pass++) {
    const res = schema.safeParse(data, { error: errorMap, reportInput: false });
    if (res.success) {
      warnings.push(...undefinedEnvironments(res.data).map((w) => `${file}:${locator.line(w.at)}: ${w.text}`));
      return { ok: true, config: res.data, warnings };
    }

    const errors: { line: number; msg: string }[] = [];
    let stripped = false;
    for (const issue of res.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        const target = getAt(data, issue.path);
        for (const key of issue.keys) {
          const keyPath = [...issue.path, key];
          const dotted = formatKeyPath(keyPath);
          if (!seenUnknown.has(dotted)) {
            seenUnknown.add(dotted);
            warnings.push(`${file}:${locator.line(keyPath)}: unknown key ${dotted} (ignored)`);
          }
          if (target !== null && typeof target === 'object' && key in target) {
            delete (target as Record<string, unknown>)[key];
            stripped = true;
          }
        }
        continue;
      }
      const dotted = formatKeyPath(issue.path);
      const line = locator.line(issue.path);
      const prefix = `${file}:${line}: `;
      errors.push({
        line,
        msg: dotted === '' ? prefix + issueMessage(issue) : `${prefix}${dotted}: ${issueMessage(issue)}`,
      });
    }
    // Re-validate after stripping: issues hidden behind unknown keys (e.g. refinements) surface then.
    if (stripped) continue;
    // Stable sort: file order, then zod's order within a line.
    errors.sort((x, y) => x.line - y.line);
    return { ok: false, errors: dedupe(errors.map((e) => e.msg)), warnings };
  }
  return { ok: false, errors: [`${file}:1: could not validate config`], warnings };
}

/**
 * Environment names that templates, tasks and defaults list but the config does not define. Not an error (an agent
 * can be switched to another list, a task edited): each is a warning, and whatever uses the name is refused until
 * it is defined, with the same words (resolve.ts).
 */
function undefinedEnvironments(config: Config): { at: PathSeg[]; text: string }[] {
  const out: { at: PathSeg[]; text: string }[] = [];
  const check = (at: PathSeg[], names: readonly string[] | undefined) =>
    names?.forEach((name, i) => {
      if (!(name in config.environments))
        out.push({
          at: [...at, i],
          text: `${formatKeyPath(at)}: environment "${name}" is not defined in environments`,
        });
    });
  check(['defaults', 'environments'], config.defaults.environments);
  for (const [name, t] of Object.entries(config.templates)) check(['templates', name, 'environments'], t.environments);
  for (const [name, t] of Object.entries(config.tasks)) check(['tasks', name, 'environments'], t.environments);
  return out;
}

function dedupe(xs: string[]): string[] {
  return [...new Set(xs)];
}

/** The config an empty or missing leo.yaml yields. */
export function defaultConfig(home: string): Config {
  const res = parseConfig('', { file: 'leo.yaml', home });
  if (!res.ok) throw new Error(`default config is invalid:\n${res.errors.join('\n')}`);
  return res.config;
}

export type LoadResult = ParseResult & { text: string | undefined };

/**
 * Reads and parses leo.yaml at `path`. A missing file yields the defaults with no warnings;
 * an unreadable file (permissions, a directory, ...) is an error. Messages are prefixed with `path`.
 * A file other users can read is a warning: it holds environment values (API keys).
 */
export async function loadConfigFile(path: string, home: string, chatEngineFor?: ChatEngineFor): Promise<LoadResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ENOENT') return { ok: true, config: defaultConfig(home), warnings: [], text: undefined };
    return { ok: false, errors: [`${path}: cannot read config: ${err.message}`], warnings: [], text: undefined };
  }
  const parsed = parseConfig(text, { file: path, home, chatEngineFor });
  const exposed = await exposedModeWarning(path);
  return { ...parsed, warnings: exposed ? [exposed, ...parsed.warnings] : parsed.warnings, text };
}

/** Says so when group or others may read the file (its mode has any of 0o044). */
export async function exposedModeWarning(path: string): Promise<string | null> {
  const mode = await stat(path).then(
    (s) => s.mode & 0o777,
    () => null,
  );
  if (mode === null || (mode & 0o044) === 0) return null;
  return `${path}: readable by other users (mode ${mode.toString(8)}) and it holds environment values: chmod 600 ${path}`;
}
