// The package as someone installs it: `npm pack` from this checkout, `npm install -g` of the tarball into a temp
// prefix, then the installed `leo` run from that prefix's bin. The install reaches the npm registry for the
// dependencies (a fresh cache; only registry.npmjs.org is needed) and skips their install scripts: better-sqlite3's
// would fetch a prebuilt binary from GitHub or compile one, and neither `leo version` nor `leo doctor` opens SQLite.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { LEO_VERSION } from '../../src/core/version.js';
import { LEO_BIN, waitForExit } from '../helpers/cli.js';
import { until } from '../helpers/wait.js';

const ROOT = path.resolve(path.dirname(LEO_BIN), '..');
const NETWORK = /ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|network/i;

describe('the npm package', () => {
  it(
    'npm pack → npm install -g into a prefix → a working leo (version, doctor, daemon)',
    { timeout: 240_000 },
    async (t) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-package-'));
      try {
        const pack = spawnSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dir], {
          cwd: ROOT,
          encoding: 'utf8',
        });
        assert.equal(pack.status, 0, pack.stderr);
        const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
        const files = info!.files.map((f) => f.path);
        for (const f of ['bin/leo.js', 'dist/src/cli/main.js', 'dist/workers/pool-worker.js', 'dist/web/index.html'])
          assert.ok(files.includes(f), `${f} is in the package`);
        assert.ok(files.includes('native-bins/setup.mjs'), 'the native set-up ships, for the first run');
        assert.ok(!files.some((f) => f.startsWith('dist/test/') || f.startsWith('src/') || f.startsWith('test/')));

        const prefix = path.join(dir, 'prefix');
        const install = spawnSync(
          'npm',
          [
            'install',
            '-g',
            '--prefix',
            prefix,
            path.join(dir, info!.filename),
            '--cache',
            path.join(dir, 'cache'),
          ].concat(['--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel', 'error']),
          { encoding: 'utf8', timeout: 200_000 },
        );
        if (install.status !== 0 && NETWORK.test(install.stderr))
          return t.skip(`the npm registry is not reachable: ${install.stderr.split('\n')[0]}`);
        assert.equal(install.status, 0, install.stderr);

        const home = path.join(dir, 'home');
        fs.mkdirSync(home);
        const env = {
          ...process.env,
          HOME: home,
          LEO_HOME: path.join(home, '.leo'),
          LEO_USER_HOME: home,
          PATH: `${path.join(prefix, 'bin')}:${process.env.PATH}`,
        };
        const leo = (...args: string[]) => spawnSync('leo', args, { env, encoding: 'utf8', cwd: home });
        const version = leo('version');
        assert.equal(version.status, 0, version.stderr);
        assert.equal(version.stdout.trim(), `leo ${LEO_VERSION}`);
        // It is the installed copy that ran, not this checkout.
        assert.ok(fs.realpathSync(path.join(prefix, 'bin', 'leo')).startsWith(fs.realpathSync(prefix)));
        const doctor = leo('doctor');
        assert.equal(doctor.status, 0, doctor.stdout + doctor.stderr);
        assert.match(doctor.stdout, /^ok\s+tmux\s/m);
        assert.match(doctor.stdout, /^leo doctor: (ready|everything is in place)/m);

        // The daemon from the package. What the skipped install scripts would have made comes from this checkout:
        // SQLite's binding (same node, same machine) and native-bins/bin (whisper-cli, already built), so the first
        // run's native set-up finds everything in place instead of building for minutes.
        const pkg = path.join(prefix, 'lib', 'node_modules', 'leo');
        const binding = path.join('node_modules', 'better-sqlite3', 'build', 'Release');
        fs.mkdirSync(path.join(pkg, binding), { recursive: true });
        fs.copyFileSync(
          path.join(ROOT, binding, 'better_sqlite3.node'),
          path.join(pkg, binding, 'better_sqlite3.node'),
        );
        fs.symlinkSync(fs.realpathSync(path.join(ROOT, 'native-bins', 'bin')), path.join(pkg, 'native-bins', 'bin'));
        fs.mkdirSync(env.LEO_HOME);
        fs.writeFileSync(path.join(env.LEO_HOME, 'leo.yaml'), 'web:\n  listen: 127.0.0.1:0\npool:\n  threads: 1\n');
        const daemon = spawn('leo', ['daemon'], { env, cwd: home, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        daemon.stdout.on('data', (c: Buffer) => (out += c.toString()));
        daemon.stderr.on('data', (c: Buffer) => (out += c.toString()));
        try {
          const port = await until(
            'the installed daemon ready',
            () => /"listen":"127\.0\.0\.1:(\d+)".*"leo daemon ready"/.exec(out)?.[1],
            60_000,
          );
          assert.equal((await fetch(`http://127.0.0.1:${port}/health`)).status, 200);
          const app = await fetch(`http://127.0.0.1:${port}/`);
          assert.equal(app.status, 200, 'Leo Web is served from the package');
          assert.match(await app.text(), /<html/i);
          assert.match(out, /first run of this install: native set-up/);
          const stamp = JSON.parse(fs.readFileSync(path.join(env.LEO_HOME, 'state', 'native-setup.json'), 'utf8'));
          assert.equal(stamp.error, null, out);
        } finally {
          daemon.kill('SIGTERM');
          await waitForExit(daemon).catch(() => daemon.kill('SIGKILL'));
          spawnSync('tmux', ['-S', path.join(env.LEO_HOME, 'state', 'tmux.sock'), 'kill-server'], { stdio: 'ignore' });
        }
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
