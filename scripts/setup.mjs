#!/usr/bin/env node
// Makes a fresh clone runnable: npm packages, then Debian packages and native programs (native-bins/setup.mjs), and
// with --for-tests the real agent CLIs the end-to-end tests drive (native-bins/clis.mjs).
// Each step is skipped when already done, so `npm start` and `npm test` stay fast after the first run.
// Node builtins only: this runs before node_modules exists.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const forTests = process.argv.includes('--for-tests');
const log = (msg) => console.error(`setup: ${msg}`);

function ensureNpmPackages() {
  const lock = path.join(root, 'package-lock.json');
  const stamp = path.join(root, 'node_modules', '.leo-setup-stamp');
  // The Node ABI too: better-sqlite3's addon is built for one, so another Node on PATH needs the packages again.
  const want = createHash('sha256').update(fs.readFileSync(lock)).update(process.versions.modules).digest('hex');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return;
  log('installing npm packages (npm ci)…');
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  if (r.status !== 0) throw new Error(`npm ci failed with exit code ${r.status}`);
  fs.writeFileSync(stamp, want);
}

try {
  ensureNpmPackages();
  const { ensureNative } = await import('../native-bins/setup.mjs');
  await ensureNative({ forTests, log });
  if (forTests) {
    // The real agent CLIs for the end-to-end tests; never fails setup (without the registry those tests skip).
    const { ensureClis } = await import('../native-bins/clis.mjs');
    await ensureClis({ log });
  }
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
