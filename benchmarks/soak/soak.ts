/**
 * The soak, runnable alone: the real daemon under SSE subscribers, sends into tmux agents, voice notes and activity
 * sweeps for N minutes (run-soak.ts), then a table of figures and checks (checks.ts). Exits 1 if a check fails.
 *
 *   npm run soak -- [--minutes 10] [--subscribers 1000] [--rate 100] [--agents 100] [--note-every 10]
 *     [--sample-every 5] [--churn 1] [--json result.json]
 *
 * (`npm run soak` builds first and raises the open-file limit to the hard one, for the subscribers.) Ctrl-C stops it
 * and removes what it started (the daemon, its tmux server, the load generator, the temp folders). Not part of
 * `npm test` or `npm run bench`; test/load/soak-short.test.ts runs the same module for half a minute in CI.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { above0, atLeast0, int, options, text } from '../lib/options.js';
import { machineLine, table } from '../lib/report.js';
import { evaluate, summaryLines, trafficLines } from './checks.js';
import { runSoak } from './run-soak.js';

const values = options({
  minutes: above0(10),
  subscribers: int(1000),
  rate: int(100),
  // A delivery holds its agent ~0.6 s (paste, settle, Enter, check), so at one send per agent per second each
  // agent's queue stays short.
  agents: int(100),
  'note-every': atLeast0(10),
  'sample-every': int(5),
  churn: atLeast0(1),
  // Every sample and count, for a closer look at a run than the tables give.
  json: text(),
});

const { minutes, subscribers } = values;

// Each subscriber is a descriptor in the daemon, which inherits this process's limit.
const fdLimit = Number(execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim());
if (Number.isFinite(fdLimit) && fdLimit < subscribers + 512) {
  console.error(`soak: the open-file limit is ${fdLimit}; raise it (ulimit -n) or run it through npm run soak`);
  process.exit(2);
}

const controller = new AbortController();
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    if (controller.signal.aborted) process.exit(130);
    console.error('soak: interrupted, stopping and cleaning up (again to quit at once)');
    controller.abort();
  });

console.log(machineLine());
const run = runSoak({
  seconds: Math.round(minutes * 60),
  subscribers,
  rate: values.rate,
  agents: values.agents,
  noteEvery: values['note-every'],
  sampleEvery: values['sample-every'],
  churn: values.churn,
  signal: controller.signal,
  progress: (line) => console.error(`soak: ${line}`),
});
// Ctrl-C in a terminal reaches the daemon and the load generator too (one process group), so an interrupted run
// has nothing left worth reporting: it only cleans up.
const result = await run.catch((err: Error) => {
  console.error(controller.signal.aborted ? 'soak: interrupted' : `soak: ${err.stack ?? err.message}`);
  process.exit(controller.signal.aborted ? 130 : 1);
});

if (values.json) fs.writeFileSync(values.json, JSON.stringify(result, null, 1));
console.log(
  `\nsoak: ${result.options.subscribers} subscribers, ${result.options.rate} sends/s to ${result.options.agents} ` +
    `agents, a voice note every ${result.options.noteEvery} s, ${result.options.churn} short-lived SSE connection/s, ` +
    `sampled every ${result.options.sampleEvery} s\n`,
);
const summary = summaryLines(result);
table(summary.head, summary.rows);
console.log('');
for (const line of trafficLines(result)) console.log(line);
console.log('');
const checks = evaluate(result);
table(
  ['check', 'measured', 'limit', 'ok'],
  checks.map((c) => [c.name, c.measured, c.limit, c.ok ? 'yes' : 'NO']),
);
const failed = checks.filter((c) => !c.ok);
console.log(failed.length ? `\n${failed.length} check(s) failed` : '\nall checks passed');
process.exit(failed.length ? 1 : 0);
