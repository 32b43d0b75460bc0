#!/usr/bin/env node
// Runs the compiled test files with node's test runner, inside a throwaway HOME so no test can read or write the
// real ~/.leo, ~/.claude* or ~/.codex even by accident.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const testDir = path.join(root, 'dist', 'test');
const only = process.argv.slice(2);

const files = fs
  .readdirSync(testDir, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.test.js'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()
  .map((f) => path.join(testDir, f));

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tests-home-'));
const env = {
  ...process.env,
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
const flags = ['--test', '--test-concurrency=2', '--test-reporter=spec', '--test-force-exit'];
const r = spawnSync(process.execPath, [...flags, `--test-timeout=${FILE_TIMEOUT_MS}`, ...files], {
  cwd: root,
  env,
  stdio: 'inherit',
});
fs.rmSync(home, { recursive: true, force: true });
process.exit(r.status ?? 1);
