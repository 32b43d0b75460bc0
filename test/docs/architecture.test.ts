// docs/ARCHITECTURE.md kept true of the tree: every repo path it writes exists, and every folder of src/ is on the map.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

/** The repository, from dist/test/docs. */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const DOC = 'docs/ARCHITECTURE.md';
/** The top folders whose paths the map writes, and which it must each name. */
const TOP = ['src', 'workers', 'test', 'scripts', 'bin', 'benchmarks', 'native-bins', 'docs'];
const REPO_PATH = new RegExp(`^(?:${TOP.join('|')})/[^\\s:]*`);

/**
 * The repo paths a markdown text writes: each inline code span that starts with one (up to a space or a `:line`), and
 * each word of a fenced block that does.
 */
function repoPaths(markdown: string): string[] {
  const fences = /^```[^\n]*\n([\s\S]*?)^```/gm;
  const found: string[] = [];
  for (const [, block] of markdown.matchAll(fences))
    for (const word of block!.split(/[\s│┌┐└┘├┤─▼►]+/)) {
      const p = REPO_PATH.exec(word)?.[0];
      if (p) found.push(p);
    }
  for (const [, span] of markdown.replace(fences, '').matchAll(/`([^`\n]+)`/g)) {
    const p = REPO_PATH.exec(span!.trim())?.[0];
    if (p) found.push(p);
  }
  return [...new Set(found)];
}

/** Whether a path exists; `*` and `<name>` in it stand for any characters within one segment. */
function exists(root: string, written: string): boolean {
  const dirOnly = written.endsWith('/');
  const segments = written.split('/').filter(Boolean);
  const wild = (s: string) => /[*<]/.test(s);
  const pattern = (s: string) =>
    new RegExp(
      `^${s
        .split(/(\*|<[^>]*>)/)
        .map((part, i) => (i % 2 ? (part === '*' ? '[^/]*' : '[^/]+') : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
        .join('')}$`,
    );
  let here = [root];
  for (const s of segments)
    here = here.flatMap((dir) => {
      if (!wild(s)) return fs.existsSync(path.join(dir, s)) ? [path.join(dir, s)] : [];
      if (!fs.statSync(dir).isDirectory()) return [];
      const re = pattern(s);
      return fs
        .readdirSync(dir)
        .filter((name) => re.test(name))
        .map((name) => path.join(dir, name));
    });
  return here.some((p) => !dirOnly || fs.statSync(p).isDirectory());
}

describe('docs/ARCHITECTURE.md', () => {
  const text = fs.readFileSync(path.join(ROOT, DOC), 'utf8');
  const paths = repoPaths(text);

  it('writes only repo paths that exist', () => {
    // A map with almost no paths would pass by reading none: the extraction itself is checked.
    assert.ok(paths.length > 50, `only ${paths.length} repo paths found in ${DOC}`);
    const missing = paths.filter((p) => !exists(ROOT, p));
    assert.deepEqual(missing, [], `${DOC} names paths that do not exist`);
  });

  it('names every folder directly under src/, and every top folder', () => {
    const folders = fs
      .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => `src/${e.name}/`);
    const unnamed = [...folders, ...TOP.map((t) => `${t}/`)].filter((f) => !paths.includes(f));
    assert.deepEqual(unnamed, [], `${DOC} does not name these folders (as \`folder/\`)`);
  });

  it('follows one message end to end', () => {
    assert.match(text, /^## One message, end to end$/m);
  });

  it('reads paths the way the checks above rely on', () => {
    const sample =
      '```\n │ see workers/sweep.ts\n```\nA `src/a.ts:12`, `src/b/`, `leo hook`, `src/daemon/*-wiring.ts`.';
    assert.deepEqual(repoPaths(sample), ['workers/sweep.ts', 'src/a.ts', 'src/b/', 'src/daemon/*-wiring.ts']);
    assert.ok(exists(ROOT, 'src/daemon/*-wiring.ts'));
    assert.ok(exists(ROOT, 'src/harnesses/<cli>/plan.ts'));
    assert.ok(!exists(ROOT, 'src/daemon/*-nothing.ts'));
    assert.ok(!exists(ROOT, 'src/pool/worker-pool.ts/'), 'a file is not a folder');
  });
});
