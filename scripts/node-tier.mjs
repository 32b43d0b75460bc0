#!/usr/bin/env node
// Runs the unit and API tiers of the compiled tests (every folder but those driving real agent CLIs, a browser,
// several machines, crashes or load) on another Node major: by default 24, the LTS, beside the machine's own Node
// that runs the whole suite. That Node comes from the npm registry's `node` package, installed into
// .cache/node-<major>/ and kept there, so a fresh machine needs nothing more. The tests run from this checkout with its
// node_modules: the one addon built for a single Node ABI, better-sqlite3, is never loaded on Node 24 (the store uses
// node:sqlite there), and would fail loudly here if it were; the others are Node-API addons, built for any Node.
// Usage: node scripts/node-tier.mjs [major] [extra run-tests arguments]. Node builtins only.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const major = /^\d+$/.test(args[0] ?? '') ? args.shift() : '24';
const dir = path.join(root, '.cache', `node-${major}`);
const log = (msg) => console.error(`node ${major} tier: ${msg}`);

/** The folders this tier leaves to the machine's own Node: real CLIs, a browser, namespaces, crashes, load. */
const HEAVY = ['e2e/', 'web/', 'crash/', 'load/', 'package/', 'hosts/', 'voice/', 'fuzz/', 'security/'];

/** The `node` package of that major in .cache/node-<major>/, installed unless a Node of that major is there. */
function ensureRuntime() {
  const bin = path.join(dir, 'node_modules', 'node', 'bin', 'node');
  const version = () => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  if (fs.existsSync(bin) && version().startsWith(`v${major}.`)) {
    log(`Node ${version()} already in ${path.relative(root, dir)}, not installed again`);
    return { bin, version: version() };
  }
  log(`installing Node ${major} from the npm registry into ${path.relative(root, dir)}…`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // The package's preinstall fetches the binary for this platform (node-<os>-<arch>, also from the registry).
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, allowScripts: { node: true } }));
  const r = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--save-exact', `node@${major}`], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0 || !version().startsWith(`v${major}.`)) throw new Error(`npm install node@${major} failed`);
  return { bin, version: version() };
}

try {
  if (!fs.existsSync(path.join(root, 'dist', 'test'))) throw new Error('no dist/test: run `npm run build` first');
  const runtime = ensureRuntime();
  log(`running the unit and API tiers on ${runtime.version}`);
  const r = spawnSync(
    runtime.bin,
    [path.join(root, 'scripts', 'run-tests.mjs'), ...HEAVY.map((h) => `--without=${h}`), ...args],
    // Everything the tests start by name (`node` in a hook command, the leo bin) is that Node too.
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, PATH: `${path.dirname(runtime.bin)}${path.delimiter}${process.env.PATH}` },
    },
  );
  process.exit(r.status ?? 1);
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
