#!/usr/bin/env node
// The import rules of `npm run check`: dependency-cruiser with .dependency-cruiser.cjs over src/ and workers/. Any
// broken rule fails the run, a folder cycle included (none is tolerated: there is no baseline), one line each.
import { spawnSync } from 'node:child_process';
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

const { summary } = JSON.parse(run.stdout);
const errors = summary.violations.filter((v) => v.rule.severity === 'error');

for (const v of errors) {
  const via = v.cycle?.length ? ` (cycle: ${[v.from, ...v.cycle.map((c) => c.name)].join(' → ')})` : '';
  console.error(`error ${v.rule.name}: ${v.from} → ${v.to}${via}`);
}
console.error(
  `${errors.length ? '✘' : '✔'} ${errors.length} dependency violations, ` +
    `${summary.totalCruised} modules, ${summary.totalDependenciesCruised} dependencies cruised.`,
);
process.exit(errors.length ? 1 : 0);
