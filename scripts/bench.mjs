#!/usr/bin/env node
// `npm run bench`: sets up what the benchmarks need (the test set-up: npm packages, tmux, ffmpeg, whisper-cli,
// espeak-ng; then nginx with Debian's nchan module), builds, runs every benchmark in benchmarks/ one after another
// with bounded options, prints their tables, saves them with the machine's description to benchmarks/results/, and
// puts the latest into docs/PERFORMANCE.md between its bench markers.
//   npm run bench                 every benchmark
//   npm run bench -- fan-out      only those whose name contains one of the words
// Node builtins only.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const log = (msg) => console.error(`bench: ${msg}`);

/**
 * Each benchmark with the options that keep the whole run, set-up on a fresh clone included (npm ci, the whisper-cli
 * build, nginx), under ten minutes on two cores; run one alone for its full defaults.
 */
const BENCHMARKS = [
  { name: 'fan-out', file: 'dist/benchmarks/fanout/fanout.js', args: ['--seconds', '2', '--storm-seconds', '6'] },
  { name: 'heavy work', file: 'dist/benchmarks/heavy/heavy-work.js', args: ['--notes', '10'] },
  { name: 'store', file: 'dist/benchmarks/store.js', args: ['--seconds', '3', '--concurrency', '1,16'] },
  { name: 'state', file: 'dist/benchmarks/state.js', args: ['--seconds', '3'] },
  { name: 'latency', file: 'dist/benchmarks/latency/latency.js', args: ['--sends', '20'] },
  { name: 'chat endpoint', file: 'dist/benchmarks/chat-endpoint.js', args: ['--turns', '100'] },
  { name: 'sweep', file: 'dist/benchmarks/sweep.js', args: ['--sweeps', '3'] },
  { name: 'voice loop', file: 'dist/benchmarks/voice-loop.js', args: ['--notes', '4'] },
  { name: 'web', file: 'dist/benchmarks/web.js', args: ['--runs', '3', '--seconds', '2'] },
  { name: 'hosts fan-in', file: 'dist/benchmarks/hosts/fan-in.js', args: ['--seconds', '3'] },
  { name: 'hosts hop', file: 'dist/benchmarks/hosts/hop.js', args: ['--posts', '200'] },
  { name: 'hosts link cut', file: 'dist/benchmarks/hosts/link-cut.js', args: ['--cuts', '3'] },
  { name: 'wal checkpoint', file: 'dist/benchmarks/wal-checkpoint.js', args: [] },
  {
    name: 'idle rss',
    file: 'dist/benchmarks/idle-rss.js',
    args: ['--settle', '60', '--samples', '4', '--variants', 'shipped,after-turns'],
  },
  { name: 'hosts move', file: 'dist/benchmarks/hosts/move.js', args: [] },
];

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8', ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}):\n${r.stderr ?? ''}`);
  return r;
}

function machine() {
  const cpu = os.cpus();
  return `${cpu[0]?.model ?? 'unknown CPU'} × ${cpu.length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ${os.type()} ${os.release()}, node ${process.version}`;
}

const only = process.argv.slice(2).map((w) => w.toLowerCase());
const chosen = BENCHMARKS.filter((b) => only.length === 0 || only.some((w) => b.name.includes(w)));

run('node', ['scripts/setup.mjs', '--for-tests'], { stdio: ['ignore', 'inherit', 'inherit'] });
// The daemon and Leo Web (the web benchmark drives the built app).
run('npm', ['run', 'build', '--silent'], { stdio: ['ignore', 'inherit', 'inherit'] });
if (chosen.some((b) => b.name === 'fan-out')) {
  const { ensureNchan } = await import(path.join(root, 'dist/benchmarks/fanout/nchan-setup.js'));
  await ensureNchan({ log });
}

const started = Date.now();
const sections = [];
for (const b of chosen) {
  log(`${b.name}…`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [b.file, ...b.args], { cwd: root, encoding: 'utf8', timeout: 9 * 60_000 });
  const secs = ((Date.now() - t0) / 1000).toFixed(0);
  const out = (r.stdout ?? '').trimEnd();
  const failed =
    r.status !== 0
      ? `\n\n(exited ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' / ')})`
      : '';
  const section = `### ${b.name} (${secs} s)\n\n\`\`\`\n${out}\n\`\`\`${failed}\n`;
  console.log(`\n${section}`);
  sections.push(section);
}

const stamp = new Date().toISOString().replace(/[:.]/g, '-');
const report = `# Benchmarks, ${new Date().toISOString()}\n\n${machine()}\n\nTotal ${((Date.now() - started) / 1000).toFixed(0)} s.\n\n${sections.join('\n')}`;
fs.mkdirSync(path.join(root, 'benchmarks', 'results'), { recursive: true });
const file = path.join(root, 'benchmarks', 'results', `${stamp}.md`);
fs.writeFileSync(file, report);
log(`saved ${path.relative(root, file)}`);

if (only.length === 0) {
  const perf = path.join(root, 'docs', 'PERFORMANCE.md');
  const text = fs.readFileSync(perf, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const a = text.indexOf(start);
  const z = text.indexOf(end);
  if (a >= 0 && z > a) {
    fs.writeFileSync(perf, `${text.slice(0, a + start.length)}\n${report}\n${text.slice(z)}`);
    log('docs/PERFORMANCE.md updated');
  }
}
