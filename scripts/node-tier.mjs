#!/usr/bin/env node
// Runs the unit and API tiers of the compiled tests (every folder but those driving real agent CLIs, a browser,
// several machines, crashes or load) on another Node major: by default 24, the LTS, beside the machine's own Node
// that runs the whole suite. That Node comes from the npm registry's `node` package, installed into .cache/, so a
// fresh machine needs nothing more. Its own copy of the app (.cache/node-<major>/app) holds node_modules installed
// by that Node, since better-sqlite3's addon is built for one Node ABI: a shared tree would fail one of the two.
// Usage: node scripts/node-tier.mjs [major] [extra run-tests arguments]. Node builtins only.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const major = /^\d+$/.test(args[0] ?? '') ? args.shift() : '24';
const cache = path.join(root, '.cache', `node-${major}`);
const log = (msg) => console.error(`node ${major} tier: ${msg}`);

/** The folders this tier leaves to the machine's own Node: real CLIs, a browser, namespaces, crashes, load. */
const HEAVY = ['e2e/', 'web/', 'crash/', 'load/', 'package/', 'hosts/', 'voice/', 'fuzz/', 'security/'];

function run(cmd, argv, opts) {
  const r = spawnSync(cmd, argv, { stdio: ['ignore', 'inherit', 'inherit'], ...opts });
  if (r.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed with exit code ${r.status ?? r.signal}`);
}

/** The `node` package of that major in .cache/node-<major>/runtime; its binary, and its headers for node-gyp. */
function ensureRuntime() {
  const dir = path.join(cache, 'runtime');
  const bin = path.join(dir, 'node_modules', 'node', 'bin', 'node');
  const version = () => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
  if (!fs.existsSync(bin) || !version().startsWith(`v${major}.`)) {
    log(`installing Node ${major} from the npm registry…`);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    // The package's preinstall fetches the binary for this platform (node-<os>-<arch>, also from the registry).
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({ private: true, allowScripts: { node: true } }, null, 2),
    );
    run('npm', ['install', '--no-audit', '--no-fund', '--save-exact', `node@${major}`], { cwd: dir });
  }
  const platform = path.join(dir, 'node_modules', 'node', 'node_modules', `node-${process.platform}-${process.arch}`);
  return { bin, headers: platform, version: version() };
}

/** The app's packages installed by that Node (npm ci), skipped while the lock file and the Node are the same. */
function ensurePackages(app, runtime) {
  const lock = fs.readFileSync(path.join(root, 'package-lock.json'));
  const want = createHash('sha256').update(lock).update(runtime.version).digest('hex');
  const stamp = path.join(app, 'node_modules', '.leo-setup-stamp');
  if (fs.existsSync(stamp) && fs.readFileSync(stamp, 'utf8') === want) return;
  log(`installing npm packages with Node ${runtime.version}…`);
  for (const f of ['package.json', 'package-lock.json']) fs.copyFileSync(path.join(root, f), path.join(app, f));
  run('npm', ['ci', '--no-audit', '--no-fund'], {
    cwd: app,
    // npm and node-gyp run on that Node (first on PATH) and build addons against its headers, not the machine's.
    env: { ...process.env, PATH: pathWith(runtime), npm_config_nodedir: runtime.headers },
  });
  fs.writeFileSync(stamp, want);
}

/**
 * The app as this checkout built it: code that is resolved as modules is copied (a symlink would resolve to the
 * checkout and its node_modules, built for the other Node); what the tests only read is linked.
 */
function syncApp(app) {
  for (const dir of ['dist', 'scripts', 'bin']) {
    fs.rmSync(path.join(app, dir), { recursive: true, force: true });
    fs.cpSync(path.join(root, dir), path.join(app, dir), { recursive: true });
  }
  for (const entry of ['docs', 'native-bins', 'src', 'test', 'tsconfig.json', 'README.md']) {
    const link = path.join(app, entry);
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync(path.join(root, entry), link);
  }
}

const pathWith = (runtime) => `${path.dirname(runtime.bin)}${path.delimiter}${process.env.PATH}`;

try {
  if (!fs.existsSync(path.join(root, 'dist', 'test'))) throw new Error('no dist/test: run `npm run build` first');
  const runtime = ensureRuntime();
  const app = path.join(cache, 'app');
  fs.mkdirSync(app, { recursive: true });
  ensurePackages(app, runtime);
  syncApp(app);
  log(`running the unit and API tiers on ${runtime.version}`);
  const r = spawnSync(
    runtime.bin,
    [path.join(app, 'scripts', 'run-tests.mjs'), ...HEAVY.map((h) => `--without=${h}`), ...args],
    // Everything the tests start by name (`node` in a hook command, the leo bin) is that Node too.
    { cwd: app, stdio: 'inherit', env: { ...process.env, PATH: pathWith(runtime) } },
  );
  process.exit(r.status ?? 1);
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
