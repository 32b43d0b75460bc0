#!/usr/bin/env node
// The import rules of `npm run check`: dependency-cruiser with .dependency-cruiser.cjs over src/ and workers/, less the
// violations recorded in .dependency-cruiser-known-violations.json (`npx depcruise-baseline src workers` writes it).
// dependency-cruiser's own --ignore-known skips folder-scope rules, so the baseline is applied here: a known folder
// cycle passes, a new one (a folder edge that closes a cycle) or any other broken rule fails the run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'node_modules', '.bin', 'depcruise');
const run = spawnSync(bin, ['src', 'workers', '--output-type', 'json'], {
  cwd: root,
  encoding: 'utf8',
  maxBuffer: 256 * 1024 * 1024,
});
if (run.error || (run.status !== 0 && !run.stdout.startsWith('{'))) {
  process.stderr.write(run.stderr || String(run.error));
  process.exit(2);
}

const key = (v) => `${v.rule.name} ${v.from} ${v.to}`;
const knownFile = path.join(root, '.dependency-cruiser-known-violations.json');
const known = new Set(fs.existsSync(knownFile) ? JSON.parse(fs.readFileSync(knownFile, 'utf8')).map(key) : []);
const { summary } = JSON.parse(run.stdout);
const fresh = summary.violations.filter((v) => v.rule.severity === 'error' && !known.has(key(v)));

for (const v of fresh) {
  const via = v.cycle?.length ? ` (cycle: ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')})` : '';
  console.error(`error ${v.rule.name}: ${v.from} → ${v.to}${via}`);
}
const skipped = summary.violations.length - fresh.length;
console.error(
  `${fresh.length ? '✘' : '✔'} ${fresh.length} dependency violations (${skipped} known), ` +
    `${summary.totalCruised} modules, ${summary.totalDependenciesCruised} dependencies cruised.`,
);
process.exit(fresh.length ? 1 : 0);
