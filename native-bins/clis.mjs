// native-bins/clis.mjs — the real agent CLIs the end-to-end tests drive (Claude Code, Codex, opencode), installed
// from npm into native-bins/clis/.
//
// Node builtins only, like setup.mjs. Never part of package.json: the daemon does not need them, only the tests do.
//
//   node native-bins/clis.mjs
//   import { ensureClis, claudeBinPath, codexBinPath, opencodeBinPath } from './native-bins/clis.mjs';
//   await ensureClis({ log: console.error });
//
// All three ship their native binary in a per-platform npm package (@anthropic-ai/claude-code-linux-x64,
// @openai/codex-linux-x64, opencode-linux-x64, …) that their main package pulls in as an optional dependency and
// reaches through a stub or a postinstall script. npm 11 holds back install scripts that no allowScripts entry
// approves, so only the platform package is installed (--ignore-scripts) and its binary is used straight from there:
// the same file the main package would run, one download instead of every variant the main package lists (opencode's
// lists a baseline build beside the AVX2 one, 177 MB each), and no dependence on whether a script ran.

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
/** The Codex version the codex adapter (src/agents/harness/codex.ts) was tried against (issue 14). */
export const CODEX_VERSION = '0.171.0';
/** The opencode version the opencode adapter (src/agents/harness/opencode.ts) was measured against. */
export const OPENCODE_VERSION = '1.18.33';

const ARCH = { x64: 'x64', arm64: 'arm64' }[process.arch];

/** Node reports the glibc it runs on; none on Linux means musl (Alpine). */
function isMusl() {
  return process.platform === 'linux' && !process.report?.getReport?.().header?.glibcVersionRuntime;
}

function hasAvx2() {
  try {
    return /(^|\s)avx2(\s|$)/.test(fs.readFileSync('/proc/cpuinfo', 'utf8'));
  } catch {
    return false;
  }
}

/**
 * What each CLI installs on this machine: `pkg` is the folder under node_modules, `spec` what npm installs there,
 * `bin` the executable inside it. `platform()` gives null, or a reason string, when the CLI ships no binary here.
 * @typedef {{pkg: string, spec: string, bin: string}} Platform
 * @typedef {{key: string, title: string, version: string, dir: string, size: string, platform(): Platform | string}} Cli
 */

/** @type {Record<'claude' | 'codex' | 'opencode', Cli>} */
export const CLIS = {
  claude: {
    key: 'claude',
    title: 'Claude Code',
    version: CLAUDE_CODE_VERSION,
    dir: 'claude-code',
    size: 'a 170 MB download, 360 MB on disk',
    platform() {
      const os = { darwin: 'darwin', linux: 'linux' }[process.platform];
      if (!ARCH || !os) return `Claude Code ships no native binary for ${process.platform}-${process.arch}`;
      const pkg = `@anthropic-ai/claude-code-${os}-${ARCH}${isMusl() ? '-musl' : ''}`;
      return { pkg, spec: `${pkg}@${CLAUDE_CODE_VERSION}`, bin: 'claude' };
    },
  },
  codex: {
    key: 'codex',
    title: 'Codex',
    version: CODEX_VERSION,
    dir: 'codex',
    size: 'a 170 MB download, 440 MB on disk',
    platform() {
      // Codex publishes its platform builds as versions of @openai/codex itself, aliased by the main package; the
      // Linux builds are static musl binaries, so one serves glibc and musl alike.
      const triple = {
        'linux-x64': 'x86_64-unknown-linux-musl',
        'linux-arm64': 'aarch64-unknown-linux-musl',
        'darwin-x64': 'x86_64-apple-darwin',
        'darwin-arm64': 'aarch64-apple-darwin',
      }[`${process.platform}-${process.arch}`];
      if (!triple) return `Codex ships no native binary for ${process.platform}-${process.arch}`;
      const suffix = `${process.platform}-${ARCH}`;
      return {
        pkg: `@openai/codex-${suffix}`,
        spec: `@openai/codex-${suffix}@npm:@openai/codex@${CODEX_VERSION}-${suffix}`,
        bin: path.join('vendor', triple, 'bin', 'codex'),
      };
    },
  },
  opencode: {
    key: 'opencode',
    title: 'opencode',
    version: OPENCODE_VERSION,
    dir: 'opencode',
    size: 'a 60 MB download, 185 MB on disk',
    platform() {
      const os = { darwin: 'darwin', linux: 'linux' }[process.platform];
      if (!ARCH || !os) return `opencode ships no native binary for ${process.platform}-${process.arch}`;
      // As opencode's own postinstall picks: the baseline build on x64 CPUs without AVX2 (it would die of SIGILL).
      // Its musl builds are not published for every release; a missing one fails the install, and the tests skip.
      const baseline = ARCH === 'x64' && os === 'linux' && !hasAvx2() ? '-baseline' : '';
      const pkg = `opencode-${os}-${ARCH}${baseline}${isMusl() ? '-musl' : ''}`;
      return { pkg, spec: `${pkg}@${OPENCODE_VERSION}`, bin: path.join('bin', 'opencode') };
    },
  },
};

const platforms = new Map();

/** @returns {Platform | string} */
function platformOf(cli) {
  if (!platforms.has(cli.key)) platforms.set(cli.key, cli.platform());
  return platforms.get(cli.key);
}

/** Each version gets its own prefix, renamed into place when complete, so a half install never looks done. */
function prefixOf(cli) {
  return path.join(CLIS_DIR, `${cli.dir}-${cli.version}`);
}

function binIn(prefix, platform) {
  return path.join(prefix, 'node_modules', ...platform.pkg.split('/'), platform.bin);
}

/**
 * Absolute path of the runnable pinned CLI (it may not exist yet; on a platform it ships nothing for, a path that
 * never will). Its folder holds no program of another CLI, so it can go first on an agent's PATH.
 * @param {Cli} cli
 */
export function cliBinPath(cli) {
  const platform = platformOf(cli);
  return typeof platform === 'string'
    ? path.join(prefixOf(cli), 'unavailable', cli.key)
    : binIn(prefixOf(cli), platform);
}

/**
 * What opencode leaves in a user's config folder after its first start with a plugin configured: the install of
 * `@opencode-ai/plugin` (package.json, package-lock.json, node_modules). The tests copy it into their sandboxes so
 * opencode starts as it does for a returning user, not re-installing it on every test (9 s of each start here).
 */
export const opencodeUserDepsPath = () => path.join(CLIS_DIR, `opencode-user-deps-${OPENCODE_VERSION}`);

export const claudeBinPath = () => cliBinPath(CLIS.claude);
export const codexBinPath = () => cliBinPath(CLIS.codex);
export const opencodeBinPath = () => cliBinPath(CLIS.opencode);

/** The fast check: the pinned binary is there and executable. The prefix only exists once it ran `--version`. */
function installed(cli) {
  try {
    const bin = cliBinPath(cli);
    const st = fs.statSync(bin);
    fs.accessSync(bin, fs.constants.X_OK);
    return st.isFile() && st.size > 1024 * 1024;
  } catch {
    return false;
  }
}

/**
 * Installs each pinned CLI unless it is already there (a stat or two each, no process started). Never throws: a
 * machine without the npm registry gets a warning per CLI, and the tests that need it skip, saying why.
 * @param {{log?: (line: string) => void}} [opts]
 * @returns {Promise<{claude: string | null, codex: string | null, opencode: string | null}>} each binary's path, or
 *   null when it is unavailable
 */
export async function ensureClis({ log = console.error } = {}) {
  // One after another: parallel 100 MB installs on a 2-core machine gain little and log in a jumble.
  const out = {};
  for (const cli of Object.values(CLIS)) out[cli.key] = await ensureCli(cli, log);
  if (out.opencode) await ensureOpencodeUserDeps(log);
  return out;
}

/** opencodeUserDepsPath's folder, installed once like a CLI (a temp folder renamed into place); never throws. */
async function ensureOpencodeUserDeps(log) {
  const final = opencodeUserDepsPath();
  if (fs.existsSync(path.join(final, 'node_modules', '@opencode-ai', 'plugin', 'package.json'))) return;
  const tmp = `${final}.tmp-${process.pid}`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp, { recursive: true });
  try {
    // The manifest opencode writes; npm then installs it the way opencode does (package-lock.json, no bun.lock).
    const manifest = { dependencies: { '@opencode-ai/plugin': OPENCODE_VERSION } };
    fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify(manifest, null, 2));
    await run('npm', ['install', '--prefix', tmp, '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error'], {
      what: `npm install @opencode-ai/plugin@${OPENCODE_VERSION}`,
    });
    fs.rmSync(final, { recursive: true, force: true });
    fs.renameSync(tmp, final);
    for (const f of fs.readdirSync(CLIS_DIR)) {
      if (/^opencode-user-deps-\d[^/]*$/.test(f) && f !== path.basename(final))
        fs.rmSync(path.join(CLIS_DIR, f), { recursive: true, force: true });
    }
  } catch (err) {
    log(`warning: opencode's plugin package could not be installed; opencode tests start slower: ${err.message}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

async function ensureCli(cli, log) {
  if (installed(cli)) return cliBinPath(cli);
  try {
    await install(cli, log);
    return cliBinPath(cli);
  } catch (err) {
    log(
      `warning: ${cli.title} ${cli.version} could not be installed, so the end-to-end tests that run the real ` +
        `${cli.key} will be skipped: ${err instanceof Error ? err.message : String(err)}`,
    );
    return null;
  }
}

async function install(cli, log) {
  const platform = platformOf(cli);
  if (typeof platform === 'string') throw new Error(platform);
  const { spec } = platform;
  log(`installing ${spec} for the end-to-end tests (${cli.size})…`);
  const t0 = Date.now();
  // One quick look-up first: without a registry npm install retries for over a minute, on every test run. npm view
  // takes no alias, so it looks up what the alias points at.
  const target = spec.includes('@npm:') ? spec.slice(spec.indexOf('@npm:') + 5) : spec;
  await run('npm', ['view', target, 'version', '--fetch-retries=0', '--fetch-timeout=20000', '--loglevel=error'], {
    what: `npm view ${target} (is the npm registry reachable?)`,
  });
  const final = prefixOf(cli);
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
    const bin = binIn(tmp, platform);
    if (!fs.existsSync(bin)) throw new Error(`${platform.pkg} holds no ${platform.bin}; ${bin} is missing`);
    const v = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 30_000, stdio: ['ignore', 'pipe', 'pipe'] });
    if (v.status !== 0 || !v.stdout.includes(cli.version)) {
      const why = v.error?.message ?? `exit ${v.status}: ${(v.stdout + v.stderr).trim().slice(0, 300)}`;
      throw new Error(`${bin} --version did not report ${cli.version}: ${why}`);
    }
    fs.rmSync(final, { recursive: true, force: true });
    fs.renameSync(tmp, final);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  removeOtherVersions(cli);
  log(`installed ${cli.title} ${cli.version} in ${((Date.now() - t0) / 1000).toFixed(1)} s: ${cliBinPath(cli)}`);
}

/** Temp prefixes of installs that were killed (their pid is gone). */
function removeStale() {
  for (const f of fs.readdirSync(CLIS_DIR)) {
    const m = /\.tmp-(\d+)$/.exec(f);
    if (m && !pidAlive(Number(m[1]))) fs.rmSync(path.join(CLIS_DIR, f), { recursive: true, force: true });
  }
}

/** A previous pin is hundreds of MB of dead weight once the new one works. */
function removeOtherVersions(cli) {
  const keep = path.basename(prefixOf(cli));
  const mine = new RegExp(`^${cli.dir}-\\d[^/]*$`);
  for (const f of fs.readdirSync(CLIS_DIR)) {
    if (mine.test(f) && f !== keep && !f.includes('.tmp-'))
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
  const bins = await ensureClis({ log: (line) => console.error(`clis: ${line}`) });
  for (const [key, bin] of Object.entries(bins)) console.log(`${key}: ${bin ?? 'unavailable'}`);
  process.exit(Object.values(bins).every(Boolean) ? 0 : 1);
}
