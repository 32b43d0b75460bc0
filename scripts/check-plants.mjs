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

/** Each plant: the rule, the file it writes (or appends to), what it writes, the part that runs, and the line to find. */
const PLANTS = [
  {
    rule: '@typescript-eslint/no-floating-promises',
    file: 'src/core/plant-floating.ts',
    text: `export async function later(): Promise<number> {\n  return 1;\n}\nlater();\n`,
    run: lint,
    find: /no-floating-promises/,
  },
  {
    rule: '@typescript-eslint/switch-exhaustiveness-check',
    file: 'src/core/plant-switch.ts',
    text:
      `export type Kind = 'a' | 'b';\nexport function named(k: Kind): string {\n  switch (k) {\n` +
      `    case 'a':\n      return 'A';\n  }\n  return '';\n}\n`,
    run: lint,
    find: /switch-exhaustiveness-check/,
  },
  {
    rule: '@typescript-eslint/consistent-type-imports',
    file: 'src/core/plant-type-import.ts',
    text: `import { LeoError } from './leo-error.js';\n\nexport type Planted = LeoError;\n`,
    run: lint,
    find: /consistent-type-imports/,
  },
  {
    rule: 'harness name compared (no-restricted-syntax)',
    file: 'src/agents/plant-harness-compare.ts',
    text: `export const isShell = (harness: string): boolean => harness === 'shell';\n`,
    run: lint,
    find: /harness name/,
  },
  {
    rule: 'harness name as a switch case (no-restricted-syntax)',
    file: 'src/web/plant-harness-case.ts',
    text:
      `export function key(harness: string): string {\n  switch (harness) {\n    case 'codex':\n` +
      `      return 'Escape';\n    default:\n      return 'C-c';\n  }\n}\n`,
    run: lint,
    find: /harness name/,
  },
  {
    rule: 'harness name as a table key (no-restricted-syntax)',
    file: 'src/delivery/plant-harness-table.ts',
    text: `export const INTERRUPT = { claude: 'Escape', opencode: 'Escape' } as const;\n`,
    run: lint,
    find: /harness name/,
  },
  {
    rule: 'harness name inside src/harnesses (allowed: must pass)',
    file: 'src/harnesses/plant-harness-allowed.ts',
    text: `export const isShell = (harness: string): boolean => harness === 'shell';\n`,
    run: lint,
    find: /harness name/,
  },
  {
    rule: 'format (prettier --check)',
    file: 'src/core/plant-format.ts',
    text: `export const planted = {a:1,   b:2}\n`,
    run: format,
    find: /plant-format/,
  },
  {
    rule: 'web-imports-only-wire',
    file: 'src/web/plant-import.ts',
    text: `export { LeoError } from '../core/leo-error.js';\n`,
    run: deps,
    find: /web-imports-only-wire/,
  },
  {
    rule: 'wire-imports-only-zod (node:)',
    file: 'src/wire/plant-node.ts',
    text: `import fs from 'node:fs';\n\nexport const exists = fs.existsSync;\n`,
    run: deps,
    find: /wire-imports-only-zod/,
  },
  {
    rule: 'wire-imports-only-zod (daemon code)',
    file: 'src/wire/plant-core.ts',
    text: `export { LeoError } from '../core/leo-error.js';\n`,
    run: deps,
    find: /wire-imports-only-zod/,
  },
  {
    rule: 'nothing-imports-daemon',
    file: 'src/agents/plant-daemon.ts',
    text: `export { startDaemon } from '../daemon/daemon.js';\n`,
    run: deps,
    find: /nothing-imports-daemon/,
  },
  {
    rule: 'only-pool-imports-workers',
    file: 'src/observe/plant-worker.ts',
    text: `export { runSweep } from '../../workers/sweep.js';\n`,
    run: deps,
    find: /only-pool-imports-workers/,
  },
  {
    rule: 'pool-imports-workers-types-only',
    file: 'src/pool/plant-worker-value.ts',
    text: `export { runSweep } from '../../workers/sweep.js';\n`,
    run: deps,
    find: /pool-imports-workers-types-only/,
  },
  {
    rule: 'no-folder-cycles (a new one)',
    file: 'src/core/plant-cycle.ts',
    text: `export { sessionName } from '../agents/session-name.js';\n`,
    run: deps,
    find: /no-folder-cycles/,
  },
  {
    rule: 'knip: unused export',
    file: 'src/core/leo-error.ts',
    append: `\nexport const PLANTED_UNUSED = 1;\n`,
    run: unused,
    find: /PLANTED_UNUSED/,
  },
  {
    rule: 'knip: unused file',
    file: 'src/core/plant-orphan.ts',
    text: `export const orphan = 1;\n`,
    run: unused,
    find: /plant-orphan/,
  },
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
  // A real copy, not a symlink: dependency-cruiser resolves a symlinked node_modules outside the tree.
  const copied = spawnSync('cp', ['-a', path.join(root, 'node_modules'), path.join(dir, 'node_modules')]);
  if (copied.status !== 0) throw new Error(`copying node_modules failed: ${copied.stderr}`);
  return dir;
}

/** The checker's line about the plant: the matching line, else its last non-empty line. */
function messageLine(out, find, file) {
  const lines = out.split('\n').map((l) => l.trim());
  const hit = lines.find((l) => find.test(l)) ?? lines.find((l) => l.includes(path.basename(file)));
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
    fs.writeFileSync(target, p.append ? `${before}${p.append}` : p.text);
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
