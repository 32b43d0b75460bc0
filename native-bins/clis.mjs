// native-bins/clis.mjs — the real agent CLIs the end-to-end tests drive, installed from npm into native-bins/clis/.
//
// Node builtins only, like setup.mjs. Never part of package.json: the daemon does not need them, only the tests do.
//
//   node native-bins/clis.mjs
//   import { ensureClis, claudeBinPath } from './native-bins/clis.mjs'; await ensureClis({ log: console.error });
//
// Claude Code ships its native binary in a per-platform optional package (@anthropic-ai/claude-code-linux-x64, …);
// the main package's bin/claude.exe is a stub that its postinstall replaces with that binary. npm 11 holds back
// install scripts that no allowScripts entry approves, so the install runs with --ignore-scripts and the binary is
// used straight from the platform package: same file, no dependence on whether a script ran.

import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { invokedDirectly } from './invoked.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CLIS_DIR = path.join(HERE, 'clis');

/**
 * The Claude Code version the claude adapter (src/agents/harness/claude.ts) was measured against. It declares
 * Node >= 22 but the native binary carries its own runtime, so on Node 20 npm only warns (EBADENGINE). Pinned
 * exactly: an unpinned install on Node 20 resolves a much older release.
 */
export const CLAUDE_CODE_VERSION = '2.1.328';

/** Each version gets its own prefix, renamed into place when complete, so a half install never looks done. */
function claudePrefix(version = CLAUDE_CODE_VERSION) {
  return path.join(CLIS_DIR, `claude-code-${version}`);
}

let platformPackage;

/** The optional package that carries the native binary for this machine, or null when Claude ships none. */
export function claudePlatformPackage() {
  if (platformPackage === undefined) platformPackage = detectPlatformPackage();
  return platformPackage;
}

function detectPlatformPackage() {
  const arch = { x64: 'x64', arm64: 'arm64' }[process.arch];
  if (!arch) return null;
  if (process.platform === 'darwin') return `@anthropic-ai/claude-code-darwin-${arch}`;
  if (process.platform !== 'linux') return null;
  // Node reports the glibc it runs on; none means musl (Alpine).
  const glibc = process.report?.getReport?.().header?.glibcVersionRuntime;
  return `@anthropic-ai/claude-code-linux-${arch}${glibc ? '' : '-musl'}`;
}

/**
 * Absolute path of the runnable pinned `claude` (it may not exist yet). Its folder holds no other program, so it can
 * go first on an agent's PATH.
 */
export function claudeBinPath() {
  const pkg = claudePlatformPackage() ?? '@anthropic-ai/claude-code-linux-x64';
  return path.join(claudePrefix(), 'node_modules', ...pkg.split('/'), 'claude');
}

/** The fast check: the pinned binary is there and executable. The prefix only exists once it ran `--version`. */
function claudeInstalled() {
  try {
    const st = fs.statSync(claudeBinPath());
    fs.accessSync(claudeBinPath(), fs.constants.X_OK);
    return st.isFile() && st.size > 1024 * 1024;
  } catch {
    return false;
  }
}

/**
 * Installs the pinned Claude Code unless it is already there (a stat or two, no process started). Never throws: a
 * machine without the npm registry gets a warning, and the tests that need claude skip, saying why.
 * @param {{log?: (line: string) => void}} [opts]
 * @returns {Promise<{claude: string | null}>} the binary's path, or null when it is unavailable
 */
export async function ensureClis({ log = console.error } = {}) {
  if (claudeInstalled()) return { claude: claudeBinPath() };
  try {
    await installClaude(log);
    return { claude: claudeBinPath() };
  } catch (err) {
    log(
      `warning: Claude Code ${CLAUDE_CODE_VERSION} could not be installed, so the end-to-end tests that run the real ` +
        `claude will be skipped: ${err instanceof Error ? err.message : String(err)}`,
    );
    return { claude: null };
  }
}

async function installClaude(log) {
  const platformPkg = claudePlatformPackage();
  if (!platformPkg) throw new Error(`Claude Code ships no native binary for ${process.platform}-${process.arch}`);
  const spec = `@anthropic-ai/claude-code@${CLAUDE_CODE_VERSION}`;
  log(`installing ${spec} for the end-to-end tests (a 170 MB download, 360 MB on disk)…`);
  const t0 = Date.now();
  // One quick look-up first: without a registry npm install retries for over a minute, on every test run.
  await run('npm', ['view', spec, 'version', '--fetch-retries=0', '--fetch-timeout=20000', '--loglevel=error'], {
    what: `npm view ${spec} (is the npm registry reachable?)`,
  });
  const final = claudePrefix();
  const tmp = `${final}.tmp-${process.pid}`;
  fs.mkdirSync(CLIS_DIR, { recursive: true });
  removeStale();
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  try {
    // --prefix with no package.json there: npm installs into tmp/node_modules and never looks at Leo's own manifest.
    await run(
      'npm',
      [
        'install',
        '--prefix',
        tmp,
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--ignore-scripts',
        '--loglevel=error',
        spec,
      ],
      { what: `npm install ${spec}` },
    );
    const bin = path.join(tmp, 'node_modules', ...platformPkg.split('/'), 'claude');
    if (!fs.existsSync(bin)) {
      throw new Error(`${platformPkg} was not installed (optional dependencies omitted?); ${bin} is missing`);
    }
    const v = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (v.status !== 0 || !v.stdout.includes(CLAUDE_CODE_VERSION)) {
      const why = v.error?.message ?? `exit ${v.status}: ${(v.stdout + v.stderr).trim().slice(0, 300)}`;
      throw new Error(`${bin} --version did not report ${CLAUDE_CODE_VERSION}: ${why}`);
    }
    fs.rmSync(final, { recursive: true, force: true });
    fs.renameSync(tmp, final);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  removeOtherVersions();
  log(`installed Claude Code ${CLAUDE_CODE_VERSION} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${claudeBinPath()}`);
}

/** Temp prefixes of installs that were killed (their pid is gone). */
function removeStale() {
  for (const f of fs.readdirSync(CLIS_DIR)) {
    const m = /\.tmp-(\d+)$/.exec(f);
    if (m && !pidAlive(Number(m[1]))) fs.rmSync(path.join(CLIS_DIR, f), { recursive: true, force: true });
  }
}

/** A previous pin is 360 MB of dead weight once the new one works. */
function removeOtherVersions() {
  const keep = path.basename(claudePrefix());
  for (const f of fs.readdirSync(CLIS_DIR)) {
    if (/^claude-code-[^/]+$/.test(f) && f !== keep && !f.includes('.tmp-'))
      fs.rmSync(path.join(CLIS_DIR, f), { recursive: true, force: true });
  }
}

function pidAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

/** Runs a command without stdin; on failure the error carries the tail of its output. */
function run(cmd, args, { what }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const keep = (chunk) => (out = (out + chunk.toString('utf8')).slice(-4000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', (err) => reject(new Error(`${what}: cannot run ${cmd}: ${err.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const why = signal ? `killed by ${signal}` : `exit code ${code}`;
      const tail = out.trim().split('\n').slice(-15).join('\n');
      reject(new Error(`${what} failed (${why})${tail ? `:\n${tail}` : ''}`));
    });
  });
}

if (invokedDirectly(import.meta.url)) {
  const { claude } = await ensureClis({ log: (line) => console.error(`clis: ${line}`) });
  if (claude) console.log(claude);
  process.exit(claude ? 0 : 1);
}
