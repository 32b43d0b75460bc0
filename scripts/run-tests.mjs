#!/usr/bin/env node
// Runs the compiled test files with node's test runner, inside a throwaway HOME so no test can read or write the
// real ~/.leo, ~/.claude* or ~/.codex even by accident, with TMPDIR inside the run's own temp root; afterwards it
// checks that the tests left no process, tmux server or temp folder behind (ending and removing what they left, and
// failing the run naming each). Files start longest first by test/durations.json; `--record` rewrites that file with
// this run's time of each file that passed.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { sweepLeftovers } from './suite-leftovers.mjs';
import { sharedChromium } from './shared-chromium.mjs';
import { batchShortFiles, longestFirst, mergeDurations, readDurations } from './test-order.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// LEO_TEST_FILES_DIR: another folder of compiled tests (the runner's own test runs it on a planted file).
const testDir = process.env.LEO_TEST_FILES_DIR ?? path.join(root, 'dist', 'test');
const record = process.argv.includes('--record');
// `--without=<prefix>`: leave out the files under that folder (another Node's tier runs the light folders only).
const without = process.argv.filter((a) => a.startsWith('--without=')).map((a) => a.slice('--without='.length));
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const durationsFile = path.join(root, 'test', 'durations.json');
const durations = readDurations(durationsFile);

const names = fs
  .readdirSync(testDir, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .filter((f) => !without.some((w) => f.startsWith(w)))
  .sort();
// Handed no file, node's runner would look for tests on its own and run everything it found.
if (names.length === 0) {
  console.error(`no test file under ${testDir} matches ${[...only, ...without.map((w) => `not ${w}`)].join(', ')}`);
  process.exit(1);
}

const suite = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-suite-'));
// Short files run in two batches, one process each (see batchShortFiles); a batch is a file of static imports, named
// so the durations reporter knows it for one. Static, so every file's tests are declared before the first one runs:
// --test-force-exit ends a process once the tests it knows of are done, which would drop a file imported later. A
// file with a top-level await would open that gap again, so it runs alone.
const awaitsAtTopLevel = (name) =>
  /^(?:await |(?:const|let|var) [^=]+= await )/m.test(fs.readFileSync(path.join(testDir, name), 'utf8'));
const { alone, batches } = batchShortFiles(
  names.filter((n) => !awaitsAtTopLevel(n)),
  durations,
  { below: 10, count: 2 },
);
alone.push(...names.filter(awaitsAtTopLevel));
const batchDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-batch-'));
const weights = { ...durations };
const batchFiles = batches.map((b, i) => {
  const file = path.join(batchDir, `batch-${i + 1}.test.mjs`);
  const imports = b.files.map((f) => `import ${JSON.stringify(pathToFileURL(path.join(testDir, f)).href)};`);
  fs.writeFileSync(file, imports.join('\n') + '\n');
  weights[file] = b.seconds;
  return file;
});
const files = longestFirst([...alone, ...batchFiles], weights).map((f) =>
  path.isAbsolute(f) ? f : path.join(testDir, f),
);

const home = path.join(suite, 'home');
const tmp = path.join(suite, 'tmp');
fs.mkdirSync(home);
fs.mkdirSync(tmp);
// Audio clients (ffmpeg, Chromium) find no sound server here and leave libpulse's runtime folder behind: in the
// run's own XDG_RUNTIME_DIR it goes with the suite, instead of a pulse-* folder in TMPDIR counted as a leftover.
const runtime = path.join(suite, 'run');
fs.mkdirSync(runtime, { mode: 0o700 });
// Screenshots of the app are the run's output for a person to look at, not leftovers: they go to dist/screenshots,
// emptied at each run's start.
const screenshots = path.join(root, 'dist', 'screenshots');
fs.rmSync(screenshots, { recursive: true, force: true });
const env = {
  ...process.env,
  TMPDIR: tmp,
  XDG_RUNTIME_DIR: runtime,
  LEO_SCREENSHOTS_DIR: screenshots,
  HOME: home,
  LEO_HOME: path.join(home, '.leo'),
  LEO_USER_HOME: home,
  CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
  CODEX_HOME: path.join(home, '.codex'),
  XDG_CONFIG_HOME: path.join(home, '.config'),
  TMUX: '',
};
// A file's process ends once its tests have (a server or child a failed clean-up left behind cannot hold the run
// open), and no file may run longer than FILE_TIMEOUT_MS: node's --test-timeout bounds each file as a whole.
const FILE_TIMEOUT_MS = 600_000;
const concurrency = Number(process.env.LEO_TEST_CONCURRENCY) || 2;
const flags = [
  `--import=${pathToFileURL(path.join(root, 'scripts', 'force-exit-drain.mjs')).href}`,
  '--test',
  `--test-concurrency=${concurrency}`,
  '--test-reporter=spec',
  '--test-force-exit',
];
const recorded = path.join(suite, 'durations.jsonl');
if (record) {
  const reporter = path.join(root, 'scripts', 'durations-reporter.mjs');
  flags.push(
    '--test-reporter-destination=stdout',
    `--test-reporter=${reporter}`,
    `--test-reporter-destination=${recorded}`,
  );
}
const chromium = await sharedChromium(
  names.map((n) => path.join(testDir, n)),
  env,
);
if (chromium) env.LEO_CHROMIUM_WS = chromium.wsEndpoint();
const runner = spawn(process.execPath, [...flags, `--test-timeout=${FILE_TIMEOUT_MS}`, ...files], {
  cwd: root,
  env,
  stdio: 'inherit',
});
// Not spawnSync: the shared browser's server runs on this process's event loop.
const [status] = await once(runner, 'exit');
if (record && fs.existsSync(recorded)) {
  const lines = fs
    .readFileSync(recorded, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .map(({ file, seconds, batched }) => ({ file: path.relative(testDir, file), seconds, batched }))
    .filter((l) => !l.file.startsWith('..'));
  // A file run alone also reports its top-level tests one by one: its own whole time, imports included, wins.
  const whole = new Set(lines.filter((l) => !l.batched).map((l) => l.file));
  const kept = lines.filter((l) => !l.batched || !whole.has(l.file));
  fs.writeFileSync(durationsFile, JSON.stringify(mergeDurations(durations, kept), null, 2) + '\n');
}
await chromium?.close();
fs.rmSync(batchDir, { recursive: true, force: true });
const left = await sweepLeftovers(suite, tmp);
fs.rmSync(suite, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
if (left.length > 0) {
  console.error(`\nThe tests left ${left.length} thing(s) behind (now ended and removed):`);
  for (const l of left) console.error(`  ${l}`);
  process.exit(1);
}
process.exit(status ?? 1);
