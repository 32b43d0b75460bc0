// native-bins/setup.mjs — make this machine ready to run (and test) Leo.
//
// Plain ESM JavaScript using Node builtins ONLY: it runs before `npm install` on a fresh machine.
//
//   node native-bins/setup.mjs [--for-tests]
//   import { ensureNative } from './native-bins/setup.mjs'; await ensureNative({ forTests: true });
//
// What it does (each step is skipped when already satisfied; silent when nothing is to be done):
//   1. Debian packages: tmux + ffmpeg (runtime), cmake + build-essential (to build whisper-cli),
//      espeak-ng + sox + chromium + an emoji font (tests only). Installed with apt-get when running as root, otherwise it
//      prints the exact `sudo apt-get install ...` command and fails.
//   2. whisper-cli: built from the whisper.cpp 1.9.1 source shipped inside the npm package
//      nodejs-whisper@0.3.1 (fetched with `npm pack`, never added to package.json), static,
//      into native-bins/bin/whisper-cli. Sample audio (jfk.wav / jfk.mp3) goes to
//      native-bins/bin/samples/. The extracted source tree stays under native-bins/build/.
//
// Exports: ensureNative, nativeBinPath, PROGRAMS, WHISPER_SOURCE, findOnPath, missingPrograms,
//          checkWhisperCli (see the JSDoc of each).

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { invokedDirectly } from './invoked.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const BIN_DIR = path.join(HERE, 'bin');
const BUILD_DIR = path.join(HERE, 'build');

/**
 * External programs Leo relies on, installed from Debian packages: present when `command` is on PATH, or for a
 * package that installs no program (a font) or one off users' PATH (/sbin), when `file` exists.
 * requiredFor: 'runtime' (the daemon needs it), 'build' (needed to build whisper-cli),
 * 'tests' (only the test suite needs it).
 * @type {ReadonlyArray<Readonly<{command?: string, file?: string, debPackage: string, requiredFor: 'runtime'|'build'|'tests', purpose: string}>>}
 */
export const PROGRAMS = Object.freeze([
  Object.freeze({ command: 'tmux', debPackage: 'tmux', requiredFor: 'runtime', purpose: 'hosts the agent sessions' }),
  Object.freeze({
    command: 'ffmpeg',
    debPackage: 'ffmpeg',
    requiredFor: 'runtime',
    purpose: 'converts voice notes to 16 kHz mono wav',
  }),
  Object.freeze({
    command: 'cmake',
    debPackage: 'cmake',
    requiredFor: 'build',
    purpose: 'configures the whisper-cli build',
  }),
  Object.freeze({
    command: 'gcc',
    debPackage: 'build-essential',
    requiredFor: 'build',
    purpose: 'C compiler for whisper-cli (ggml)',
  }),
  Object.freeze({
    command: 'g++',
    debPackage: 'build-essential',
    requiredFor: 'build',
    purpose: 'C++ compiler for whisper-cli',
  }),
  Object.freeze({
    command: 'make',
    debPackage: 'build-essential',
    requiredFor: 'build',
    purpose: 'drives the whisper-cli build',
  }),
  Object.freeze({
    command: 'espeak-ng',
    debPackage: 'espeak-ng',
    requiredFor: 'tests',
    purpose: 'synthesises speech for voice-note tests',
  }),
  Object.freeze({
    command: 'sox',
    debPackage: 'sox',
    requiredFor: 'tests',
    purpose: 'generates and inspects test audio',
  }),
  Object.freeze({
    command: 'chromium',
    debPackage: 'chromium',
    requiredFor: 'tests',
    purpose: 'the real browser the Leo Web tests drive (playwright-core)',
  }),
  Object.freeze({
    file: '/usr/share/fonts/truetype/noto/NotoColorEmoji.ttf',
    debPackage: 'fonts-noto-color-emoji',
    requiredFor: 'tests',
    purpose: "agents' emoji in the Leo Web screenshots (chromium installed without recommends has no emoji font)",
  }),
  Object.freeze({
    // In /sbin, on no user's PATH but root's: looked up by its file, so a user's setup does not ask for it in vain.
    file: '/sbin/ip',
    debPackage: 'iproute2',
    requiredFor: 'tests',
    purpose: 'network namespaces for the hosts bench, run as root (test/helpers/hosts/; loopback without them)',
  }),
]);

/** How a missing program is named in messages: its command, or its package when it installs none. */
const label = (p) => p.command ?? p.debPackage;

/**
 * Where whisper-cli comes from. sourceDir is the extracted whisper.cpp tree (kept after the build;
 * models/convert-pt-to-ggml.py there documents the ggml model layout).
 */
export const WHISPER_SOURCE = Object.freeze({
  npmPackage: 'nodejs-whisper',
  npmVersion: '0.3.1',
  // dist.integrity of nodejs-whisper@0.3.1 on the npm registry (tarballs are immutable per version).
  integrity: 'sha512-ceoilUVraRuR5FnNyXpGQT2auAR48Oc3AQBEmkXnVpSn9iN6yVRzQBFCqVTGWbk6Wdi95NhvwXNzFvuR7erLWw==',
  whisperCppVersion: '1.9.1',
  sourceDir: path.join(BUILD_DIR, 'nodejs-whisper-0.3.1', 'package', 'cpp', 'whisper.cpp'),
  convertScript: path.join(
    BUILD_DIR,
    'nodejs-whisper-0.3.1',
    'package',
    'cpp',
    'whisper.cpp',
    'models',
    'convert-pt-to-ggml.py',
  ),
  samplesDir: path.join(BIN_DIR, 'samples'),
});

const CMAKE_OPTIONS = [
  '-DCMAKE_BUILD_TYPE=Release',
  '-DBUILD_SHARED_LIBS=OFF', // static libwhisper/libggml: one self-contained binary (libgomp/libstdc++ stay dynamic)
  '-DGGML_NATIVE=OFF', // no -march=native; x86-64 still gets the AVX2/FMA/F16C/BMI2 defaults of ggml
  '-DGGML_CCACHE=OFF', // deterministic, and avoids the "ccache not found" warning
  '-DGGML_BACKEND_DL=OFF',
  '-DWHISPER_BUILD_EXAMPLES=ON', // examples/cli defines the whisper-cli target
  '-DWHISPER_BUILD_TESTS=OFF',
  '-DWHISPER_BUILD_SERVER=OFF',
  '-DWHISPER_SDL2=OFF',
  '-DWHISPER_CURL=OFF',
  '-DWHISPER_COMMON_FFMPEG=OFF', // we convert with the ffmpeg CLI instead of linking libav*
];

/**
 * Absolute path of native-bins/bin/<name>.
 * @param {string} name
 * @returns {string}
 */
export function nativeBinPath(name) {
  return path.join(BIN_DIR, name);
}

/**
 * Absolute path of an executable named `command` on PATH, or null.
 * @param {string} command
 * @param {string} [searchPath]
 * @returns {string | null}
 */
export function findOnPath(command, searchPath = process.env.PATH ?? '') {
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      if (fs.statSync(candidate).isFile()) {
        fs.accessSync(candidate, fs.constants.X_OK);
        return candidate;
      }
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Programs from PROGRAMS that are not on PATH. Runtime and build programs are always checked,
 * test programs only when forTests.
 * @param {{forTests?: boolean}} [opts]
 */
export function missingPrograms({ forTests = false } = {}) {
  return PROGRAMS.filter(
    (p) => (forTests || p.requiredFor !== 'tests') && !(p.command ? findOnPath(p.command) : fs.existsSync(p.file)),
  );
}

/**
 * Does the whisper-cli at `binPath` run? `whisper-cli --help` prints usage and exits 0 in 1.9.1
 * (exit(0) right after whisper_print_usage); `--version` prints "whisper.cpp version: 1.9.1" and
 * exits 0, which also tells us whether the binary matches WHISPER_SOURCE.whisperCppVersion.
 * @param {string} [binPath]
 * @returns {{ok: boolean, version: string | null, reason?: string}}
 */
export function checkWhisperCli(binPath = nativeBinPath('whisper-cli')) {
  if (!fs.existsSync(binPath)) return { ok: false, version: null, reason: `${binPath} does not exist` };
  const help = spawnSync(binPath, ['--help'], { stdio: ['ignore', 'pipe', 'pipe'], timeout: 15_000 });
  if (help.error || help.status !== 0) {
    const why = help.error
      ? help.error.message
      : `exit code ${help.status}${help.signal ? ` (signal ${help.signal})` : ''}`;
    return { ok: false, version: null, reason: `${binPath} --help failed: ${why}` };
  }
  const ver = spawnSync(binPath, ['--version'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 15_000,
    encoding: 'utf8',
  });
  const m = /version:\s*(\S+)/.exec(`${ver.stdout ?? ''}${ver.stderr ?? ''}`);
  return { ok: true, version: m ? m[1] : null };
}

/**
 * Make the machine ready: Debian packages, then native-bins/bin/whisper-cli and sample audio.
 * Idempotent; logs nothing when everything is already present. Throws on failure.
 * @param {{forTests?: boolean, log?: (line: string) => void}} [opts]
 * @returns {Promise<{installedPackages: string[], builtWhisperCli: boolean}>}
 */
export async function ensureNative({ forTests = false, log = console.error } = {}) {
  const installedPackages = await ensurePackages({ forTests, log });
  const builtWhisperCli = await ensureWhisperCli({ log });
  return { installedPackages, builtWhisperCli };
}

// ---------------------------------------------------------------------------------------------
// 1. Debian packages

async function ensurePackages({ forTests, log }) {
  const missing = missingPrograms({ forTests });
  if (missing.length === 0) return [];

  const pkgs = [...new Set(missing.map((p) => p.debPackage))];
  const what = missing.map((p) => `${label(p)} (${p.requiredFor})`).join(', ');
  const aptGet = findOnPath('apt-get');
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

  if (!aptGet) {
    throw new Error(
      `leo setup: missing programs: ${what}. apt-get is not available on this machine; ` +
        `install the equivalent of the Debian packages: ${pkgs.join(' ')}`,
    );
  }
  if (!isRoot) {
    const cmd = `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${pkgs.join(' ')}`;
    throw new Error(
      `leo setup: missing programs: ${what}. Install them (as root) with:\n\n    ${cmd}\n\nthen run this again.`,
    );
  }

  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'a' };
  // Wait for another apt/dpkg (unattended-upgrades…) instead of failing at once.
  const lockOpt = ['-o', 'DPkg::Lock::Timeout=300'];
  log(`leo setup: missing ${what}; installing Debian packages: ${pkgs.join(' ')}`);
  log('leo setup: apt-get update (this can take a while)…');
  let t0 = Date.now();
  await run(aptGet, ['-q', ...lockOpt, 'update'], { env, what: 'apt-get update' });
  log(`leo setup: apt-get update done in ${secs(t0)}`);
  log(`leo setup: apt-get install ${pkgs.join(' ')}…`);
  t0 = Date.now();
  await run(
    aptGet,
    [
      '-q',
      '-y',
      '--no-install-recommends',
      ...lockOpt,
      '-o',
      'Dpkg::Options::=--force-confdef',
      '-o',
      'Dpkg::Options::=--force-confold',
      'install',
      ...pkgs,
    ],
    { env, what: `apt-get install ${pkgs.join(' ')}` },
  );
  log(`leo setup: apt-get install done in ${secs(t0)}`);

  const still = missingPrograms({ forTests });
  if (still.length > 0) {
    throw new Error(`leo setup: still missing after apt-get install: ${still.map(label).join(', ')}`);
  }
  return pkgs;
}

// ---------------------------------------------------------------------------------------------
// 2. whisper-cli

async function ensureWhisperCli({ log }) {
  const target = nativeBinPath('whisper-cli');
  const status = checkWhisperCli(target);
  const upToDate = status.ok && status.version === WHISPER_SOURCE.whisperCppVersion;
  if (upToDate && samplesPresent()) return false;

  const release = await acquireLock(path.join(BUILD_DIR, '.setup.lock'), log);
  try {
    // Another process may have finished the work while we waited for the lock.
    const again = checkWhisperCli(target);
    const needBuild = !(again.ok && again.version === WHISPER_SOURCE.whisperCppVersion);
    if (!needBuild && samplesPresent()) return false;

    if (needBuild) {
      if (status.ok)
        log(
          `leo setup: ${target} is version ${status.version ?? '?'}, want ${WHISPER_SOURCE.whisperCppVersion}; rebuilding`,
        );
      else if (fs.existsSync(target)) log(`leo setup: ${status.reason}; rebuilding`);
    }
    const src = await ensureWhisperSource({ log });
    if (needBuild) await buildWhisperCli({ src, target, log });
    copySamples({ src, log });
    return needBuild;
  } finally {
    release();
  }
}

function samplesPresent() {
  return ['jfk.wav', 'jfk.mp3'].every((f) => fs.existsSync(path.join(WHISPER_SOURCE.samplesDir, f)));
}

/** Fetch (npm pack) and extract nodejs-whisper; returns the whisper.cpp source dir. */
async function ensureWhisperSource({ log }) {
  const src = WHISPER_SOURCE.sourceDir;
  if (fs.existsSync(path.join(src, 'CMakeLists.txt'))) return src;

  const npm = findOnPath('npm');
  if (!npm)
    throw new Error('leo setup: npm is not on PATH; it is needed to fetch the whisper.cpp source (nodejs-whisper)');
  fs.mkdirSync(BUILD_DIR, { recursive: true });

  const spec = `${WHISPER_SOURCE.npmPackage}@${WHISPER_SOURCE.npmVersion}`;
  const tgz = path.join(BUILD_DIR, `${WHISPER_SOURCE.npmPackage}-${WHISPER_SOURCE.npmVersion}.tgz`);
  if (!fs.existsSync(tgz) || integrityOf(tgz) !== WHISPER_SOURCE.integrity) {
    fs.rmSync(tgz, { force: true });
    log(`leo setup: fetching whisper.cpp ${WHISPER_SOURCE.whisperCppVersion} source: npm pack ${spec}…`);
    const t0 = Date.now();
    await run(npm, ['pack', spec, '--pack-destination', BUILD_DIR, '--silent', '--ignore-scripts'], {
      what: `npm pack ${spec}`,
      cwd: BUILD_DIR,
    });
    if (!fs.existsSync(tgz)) throw new Error(`leo setup: npm pack ${spec} did not produce ${tgz}`);
    log(`leo setup: fetched ${path.basename(tgz)} in ${secs(t0)}`);
  }
  const got = integrityOf(tgz);
  if (got !== WHISPER_SOURCE.integrity) {
    fs.rmSync(tgz, { force: true });
    throw new Error(
      `leo setup: ${path.basename(tgz)} integrity mismatch: got ${got}, want ${WHISPER_SOURCE.integrity}`,
    );
  }

  // Extract into a temp dir, then rename, so an interrupted extraction never looks complete.
  const finalDir = path.join(BUILD_DIR, `${WHISPER_SOURCE.npmPackage}-${WHISPER_SOURCE.npmVersion}`);
  const tmpDir = `${finalDir}.tmp-${process.pid}`;
  fs.rmSync(tmpDir, { recursive: true, force: true });
  fs.rmSync(finalDir, { recursive: true, force: true });
  fs.mkdirSync(tmpDir, { recursive: true });
  log('leo setup: extracting source…');
  await run('tar', ['-xzf', tgz, '-C', tmpDir, '--no-same-owner'], { what: 'tar -xzf' });
  fs.renameSync(tmpDir, finalDir);
  if (!fs.existsSync(path.join(src, 'CMakeLists.txt'))) {
    throw new Error(`leo setup: ${spec} does not contain package/cpp/whisper.cpp/CMakeLists.txt`);
  }
  return src;
}

function integrityOf(file) {
  return `sha512-${createHash('sha512').update(fs.readFileSync(file)).digest('base64')}`;
}

async function buildWhisperCli({ src, target, log }) {
  const buildTree = path.join(BUILD_DIR, 'whisper-cli-build');
  const jobs = String(
    typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length || 1,
  );
  const t0 = Date.now();

  log(`leo setup: configuring whisper-cli (whisper.cpp ${WHISPER_SOURCE.whisperCppVersion})…`);
  await run('cmake', ['-S', src, '-B', buildTree, ...CMAKE_OPTIONS], { what: 'cmake configure' });

  log(`leo setup: building whisper-cli with ${jobs} jobs (about 100 s on 2 cores)…`);
  let lastDecile = -1;
  await run('cmake', ['--build', buildTree, '--target', 'whisper-cli', '--config', 'Release', '-j', jobs], {
    what: 'cmake --build whisper-cli',
    onLine: (line) => {
      const m = /^\[\s*(\d+)%\]/.exec(line);
      if (!m) return;
      const decile = Math.floor(Number(m[1]) / 10);
      if (decile > lastDecile) {
        lastDecile = decile;
        log(`leo setup: whisper-cli build ${m[1]}% (${secs(t0)})`);
      }
    },
  });

  const built = path.join(buildTree, 'bin', 'whisper-cli');
  if (!fs.existsSync(built)) throw new Error(`leo setup: build finished but ${built} is missing`);

  // Copy to a temp name, strip, check, then rename: an interrupted run never leaves a half binary.
  fs.mkdirSync(BIN_DIR, { recursive: true });
  for (const f of fs.readdirSync(BIN_DIR)) {
    const m = /^\.whisper-cli\.tmp-(\d+)$/.exec(f);
    if (m && !pidAlive(Number(m[1]))) fs.rmSync(path.join(BIN_DIR, f), { force: true }); // left by a killed run
  }
  const tmp = path.join(BIN_DIR, `.whisper-cli.tmp-${process.pid}`);
  try {
    fs.copyFileSync(built, tmp);
    fs.chmodSync(tmp, 0o755);
    const strip = findOnPath('strip');
    if (strip) await run(strip, [tmp], { what: 'strip whisper-cli' });
    const check = checkWhisperCli(tmp);
    if (!check.ok) throw new Error(`leo setup: freshly built whisper-cli does not run: ${check.reason}`);
    fs.renameSync(tmp, target);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
  const size = (fs.statSync(target).size / 1024 / 1024).toFixed(1);
  log(`leo setup: built ${target} (${size} MB) in ${secs(t0)}`);
}

function copySamples({ src, log }) {
  fs.mkdirSync(WHISPER_SOURCE.samplesDir, { recursive: true });
  // 1.9.1 as shipped by nodejs-whisper has samples/jfk.mp3 but keeps jfk.wav only under bindings/go/samples/.
  const wanted = {
    'jfk.wav': ['samples/jfk.wav', 'bindings/go/samples/jfk.wav'],
    'jfk.mp3': ['samples/jfk.mp3'],
  };
  for (const [name, candidates] of Object.entries(wanted)) {
    const dest = path.join(WHISPER_SOURCE.samplesDir, name);
    if (fs.existsSync(dest)) continue;
    const from = candidates.map((c) => path.join(src, c)).find((p) => fs.existsSync(p));
    if (!from) {
      log(`leo setup: note: ${name} not found in the whisper.cpp source; skipped`);
      continue;
    }
    const tmp = `${dest}.tmp-${process.pid}`;
    fs.copyFileSync(from, tmp);
    fs.renameSync(tmp, dest);
    log(`leo setup: copied ${name} to ${WHISPER_SOURCE.samplesDir}`);
  }
}

// ---------------------------------------------------------------------------------------------
// helpers

function secs(t0) {
  return `${((Date.now() - t0) / 1000).toFixed(1)} s`;
}

/**
 * Run a command without stdin; keep the tail of its output for the error message.
 * @param {string} cmd
 * @param {string[]} args
 * @param {{what: string, env?: NodeJS.ProcessEnv, cwd?: string, onLine?: (line: string) => void}} opts
 */
function run(cmd, args, { what, env = process.env, cwd, onLine }) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const tail = [];
    let partial = { stdout: '', stderr: '' };
    const feed = (key) => (chunk) => {
      const lines = (partial[key] + chunk.toString('utf8')).split(/\r?\n/);
      partial[key] = lines.pop() ?? '';
      for (const line of lines) {
        tail.push(line);
        if (tail.length > 40) tail.shift();
        onLine?.(line);
      }
    };
    child.stdout.on('data', feed('stdout'));
    child.stderr.on('data', feed('stderr'));
    child.on('error', (err) => reject(new Error(`leo setup: ${what}: cannot run ${cmd}: ${err.message}`)));
    child.on('close', (code, signal) => {
      for (const key of ['stdout', 'stderr']) if (partial[key]) tail.push(partial[key]);
      if (code === 0) return resolve();
      const why = signal ? `killed by ${signal}` : `exit code ${code}`;
      reject(new Error(`leo setup: ${what} failed (${why}). Last output:\n${tail.join('\n')}`));
    });
  });
}

/** A lock file holding our pid; stale locks (dead pid) are taken over. Returns the release function. */
async function acquireLock(lockPath, log) {
  fs.mkdirSync(path.dirname(lockPath), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      fs.writeFileSync(lockPath, String(process.pid), { flag: 'wx' });
      return () => fs.rmSync(lockPath, { force: true });
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
    }
    let holder = NaN;
    try {
      holder = Number(fs.readFileSync(lockPath, 'utf8').trim());
    } catch {
      continue; // released between our attempts
    }
    if (!Number.isInteger(holder) || holder <= 0 || !pidAlive(holder)) {
      fs.rmSync(lockPath, { force: true });
      continue;
    }
    if (!announced) {
      log(`leo setup: waiting for another setup (pid ${holder}) building in native-bins/build…`);
      announced = true;
    }
    await new Promise((r) => setTimeout(r, 1000));
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

// ---------------------------------------------------------------------------------------------
// CLI

if (invokedDirectly(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('-h') || args.includes('--help')) {
    console.log(
      'usage: node native-bins/setup.mjs [--for-tests]\n' +
        '  Installs missing Debian packages (tmux ffmpeg cmake build-essential; +espeak-ng sox chromium fonts-noto-color-emoji iproute2 with --for-tests)\n' +
        '  and builds native-bins/bin/whisper-cli. Does nothing when everything is present.',
    );
    process.exit(0);
  }
  const unknown = args.filter((a) => a !== '--for-tests');
  if (unknown.length > 0) {
    console.error(`setup.mjs: unknown argument(s): ${unknown.join(' ')}`);
    process.exit(2);
  }
  ensureNative({ forTests: args.includes('--for-tests') }).then(
    () => process.exit(0),
    (err) => {
      console.error(err instanceof Error ? err.message : String(err));
      process.exit(1);
    },
  );
}
