#!/usr/bin/env node
// Proves that each rule of `npm run check` bites: in a throwaway copy of the tree (the files git knows, plus a copy
// of node_modules), it plants one violation at a time, runs the part of the check that owns the rule, and prints
// whether it failed and the checker's line about the plant. Each part is one `&&` step of `npm run check`, so a part
// failing fails the check and `npm test`; `--full` also runs the whole `npm run check` on the first plant. Slow (a
// few minutes), so not part of `npm test`. Usage: node scripts/check-plants.mjs [--full]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const lint = (file) => ['npx', 'eslint', '--max-warnings', '0', file];
const format = () => ['npm', 'run', '--silent', 'format:check'];
const deps = () => ['npm', 'run', '--silent', 'check:deps'];
const unused = () => ['npm', 'run', '--silent', 'check:unused'];

/** One plant: the part of the check that runs, the rule, the file it writes, what it writes, the line to find. */
const plant = (run, rule, file, text, find = rule) => ({ run, rule, file, text, find });
const HARNESS_FINDING = 'harness name';

const PLANTS = [
  plant(
    lint,
    '@typescript-eslint/no-floating-promises',
    'src/core/plant-floating.ts',
    `export async function later(): Promise<number> {\n  return 1;\n}\nlater();\n`,
  ),
  plant(
    lint,
    '@typescript-eslint/switch-exhaustiveness-check',
    'src/core/plant-switch.ts',
    `export type Kind = 'a' | 'b';\nexport function named(k: Kind): string {\n  switch (k) {\n` +
      `    case 'a':\n      return 'A';\n  }\n  return '';\n}\n`,
  ),
  plant(
    lint,
    '@typescript-eslint/consistent-type-imports',
    'src/core/plant-type-import.ts',
    `import { LeoError } from './leo-error.js';\n\nexport type Planted = LeoError;\n`,
  ),
  plant(
    lint,
    'harness name compared (no-restricted-syntax)',
    'src/agents/plant-harness-compare.ts',
    `export const isShell = (harness: string): boolean => harness === 'shell';\n`,
    HARNESS_FINDING,
  ),
  plant(
    lint,
    'harness name as a switch case (no-restricted-syntax)',
    'src/web/plant-harness-case.ts',
    `export function key(harness: string): string {\n  switch (harness) {\n    case 'codex':\n` +
      `      return 'Escape';\n    default:\n      return 'C-c';\n  }\n}\n`,
    HARNESS_FINDING,
  ),
  plant(
    lint,
    'harness name as a table key (no-restricted-syntax)',
    'src/delivery/plant-harness-table.ts',
    `export const INTERRUPT = { claude: 'Escape', opencode: 'Escape' } as const;\n`,
    HARNESS_FINDING,
  ),
  plant(
    lint,
    'harness name inside src/harnesses (allowed: must pass)',
    'src/harnesses/plant-harness-allowed.ts',
    `export const isShell = (harness: string): boolean => harness === 'shell';\n`,
    HARNESS_FINDING,
  ),
  plant(
    format,
    'format (prettier --check)',
    'src/core/plant-format.ts',
    `export const planted = {a:1,   b:2}\n`,
    'plant-format',
  ),
  plant(deps, 'web-imports-only-wire', 'src/web/plant-import.ts', `export { LeoError } from '../core/leo-error.js';\n`),
  plant(
    deps,
    'wire-imports-only-zod',
    'src/wire/plant-node.ts',
    `import fs from 'node:fs';\n\nexport const exists = fs.existsSync;\n`,
  ),
  plant(deps, 'wire-imports-only-zod', 'src/wire/plant-core.ts', `export { LeoError } from '../core/leo-error.js';\n`),
  plant(
    deps,
    'nothing-imports-daemon',
    'src/agents/plant-daemon.ts',
    `export { startDaemon } from '../daemon/daemon.js';\n`,
  ),
  plant(
    deps,
    'only-pool-imports-workers',
    'src/observe/plant-worker.ts',
    `export { runSweep } from '../../workers/sweep.js';\n`,
  ),
  plant(
    deps,
    'pool-imports-workers-types-only',
    'src/pool/plant-worker-value.ts',
    `export { runSweep } from '../../workers/sweep.js';\n`,
  ),
  plant(
    deps,
    'no-folder-cycles',
    'src/core/plant-cycle.ts',
    `export { sessionName } from '../tmux/session-name.js';\n`,
  ),
  {
    ...plant(
      unused,
      'knip: unused export',
      'src/core/leo-error.ts',
      `\nexport const PLANTED_UNUSED = 1;\n`,
      'PLANTED_UNUSED',
    ),
    append: true,
  },
  plant(unused, 'knip: unused file', 'src/core/plant-orphan.ts', `export const orphan = 1;\n`, 'plant-orphan'),
];

function sh(cmd, cwd) {
  const r = spawnSync(cmd[0], cmd.slice(1), { cwd, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: r.status, out: `${r.stdout ?? ''}\n${r.stderr ?? ''}` };
}

/** The copy: every file git tracks or would track (so uncommitted work is checked too), and node_modules. */
function copyTree() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-plants-'));
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: root,
    encoding: 'utf8',
  });
  for (const f of listed.stdout.split('\0').filter(Boolean)) {
    const from = path.join(root, f);
    if (!fs.existsSync(from) || fs.lstatSync(from).isSymbolicLink()) continue;
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.copyFileSync(from, path.join(dir, f));
  }
  // A real copy, not a symlink: dependency-cruiser resolves a symlinked node_modules outside the tree. A worktree's
  // node_modules is itself a symlink, so the copy is of where it points.
  const modules = fs.realpathSync(path.join(root, 'node_modules'));
  const copied = spawnSync('cp', ['-a', modules, path.join(dir, 'node_modules')]);
  if (copied.status !== 0) throw new Error(`copying node_modules failed: ${copied.stderr}`);
  return dir;
}

/** The checker's line about the plant: the matching line, else its last non-empty line. */
function messageLine(out, find, file) {
  const lines = out.split('\n').map((l) => l.trim());
  const hit = lines.find((l) => l.includes(find)) ?? lines.find((l) => l.includes(path.basename(file)));
  return hit ?? lines.filter(Boolean).at(-1) ?? '';
}

const full = process.argv.includes('--full');
const dir = copyTree();
let wrong = 0;
try {
  for (const [i, p] of PLANTS.entries()) {
    const target = path.join(dir, p.file);
    const before = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : null;
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(target, p.append ? `${before}${p.text}` : p.text);
    try {
      const { status, out } = sh(p.run(p.file), dir);
      const failed = status !== 0;
      const expected = !p.rule.includes('must pass');
      if (failed !== expected) wrong++;
      const said = failed ? messageLine(out, p.find, p.file) : '(no finding)';
      console.log(`${failed === expected ? 'ok ' : 'BAD'} ${p.rule} | ${p.file} | check failed: ${failed} | ${said}`);
      if (full && i === 0) {
        const whole = sh(['npm', 'run', '--silent', 'check'], dir);
        console.log(`    npm run check with this plant: exit ${whole.status}`);
        if (whole.status === 0) wrong++;
      }
    } finally {
      if (before === null) fs.rmSync(target);
      else fs.writeFileSync(target, before);
    }
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(wrong ? `${wrong} plant(s) not caught as expected` : `all ${PLANTS.length} plants behaved as expected`);
process.exit(wrong ? 1 : 0);
