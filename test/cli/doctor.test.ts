import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { findOnPath, nativeBinDir } from '../../src/native/programs.js';
import { migrations } from '../../src/store/migrations.js';
import { runLeo, runLeoAsync } from '../helpers/cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { makeTempHome } from '../helpers/temp-home.js';

/** A PATH holding only the named programs, so a test can take one away without touching the machine. */
function pathWith(dir: string, programs: string[]): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const p of programs) {
    const real = findOnPath(p);
    assert.ok(real, `${p} must be installed for this test (npm test's setup installs it)`);
    fs.symlinkSync(real, path.join(dir, p));
  }
  return dir;
}

/** Just the ggml header magic: doctor checks the file is a ggml model, it does not load it. */
function fakeModel(file: string): string {
  const buf = Buffer.alloc(64);
  buf.writeUInt32LE(0x67676d6c, 0);
  fs.writeFileSync(file, buf);
  return file;
}

const line = (out: string, name: string) =>
  out.split('\n').find((l) => new RegExp(`^\\w+\\s+${name}\\s`).test(l)) ?? '';

describe('leo doctor', () => {
  it('on a machine that has everything: every line ok, exit 0', () => {
    const whisper = path.join(nativeBinDir(), 'whisper-cli');
    assert.ok(fs.existsSync(whisper), 'npm test builds whisper-cli into native-bins first');
    const t = makeTempHome();
    try {
      fs.writeFileSync(`${t.home}/leo.yaml`, `chat:\n  whisper_model: ${fakeModel(`${t.home}/ggml-tiny.bin`)}\n`);
      const r = runLeo(['doctor'], t.env);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      for (const name of [
        'config',
        'tmux',
        'ffmpeg',
        'ffprobe',
        'whisper-cli',
        'whisper model',
        'state folder',
        'database',
      ])
        assert.match(line(r.stdout, name), /^ok\s/, `${name}: ${r.stdout}`);
      assert.match(line(r.stdout, 'whisper-cli'), /whisper|usage/i);
      assert.match(r.stdout, /everything is in place/);
    } finally {
      t.cleanup();
    }
  });

  it('on a machine without whisper-cli: says so with the fix, and still exits 0 (it is optional)', () => {
    const t = makeTempHome();
    try {
      const env = {
        ...t.env,
        LEO_NATIVE_BIN_DIR: `${t.home}/empty-bin`,
        PATH: pathWith(`${t.home}/path`, ['tmux', 'ffmpeg', 'ffprobe']),
      };
      const r = runLeo(['doctor'], env);
      assert.equal(r.status, 0, r.stdout + r.stderr);
      assert.match(
        line(r.stdout, 'whisper-cli'),
        /^missing\s+whisper-cli\s+not found in native-bins or PATH \(optional: voice notes\)/,
      );
      assert.match(r.stdout, /fix: node native-bins\/setup\.mjs/);
      assert.match(line(r.stdout, 'whisper model'), /^missing\s.*chat\.whisper_model is not set/);
      assert.match(line(r.stdout, 'tmux'), /^ok\s/);
      assert.match(r.stdout, /optional parts not available: whisper-cli, whisper model/);
    } finally {
      t.cleanup();
    }
  });

  it('exits 1 when a required part is missing or wrong, naming each', () => {
    const t = makeTempHome('web:\n  listen: nowhere\n');
    try {
      fs.mkdirSync(`${t.home}/state`, { mode: 0o700 });
      fs.writeFileSync(`${t.home}/state/api.token`, 'leo_op_x\n', { mode: 0o644 });
      fs.chmodSync(`${t.home}/state/api.token`, 0o644);
      const r = runLeo(['doctor'], { ...t.env, PATH: pathWith(`${t.home}/path`, ['ffmpeg']) });
      assert.equal(r.status, 1, r.stdout);
      assert.match(line(r.stdout, 'config'), /^wrong\s.*leo\.yaml:2: web\.listen/);
      assert.match(line(r.stdout, 'tmux'), /^missing\s/);
      assert.match(r.stdout, /fix: apt-get install tmux/);
      assert.match(line(r.stdout, 'operator token'), /^wrong\s.*644/);
      assert.match(r.stdout, /fix: chmod 600 /);
      assert.match(r.stdout, /required part\(s\) missing or wrong: config, tmux, operator token/);
    } finally {
      t.cleanup();
    }
  });

  it('while the daemon runs: the schema version SQLite sees (in the write-ahead log), and doctor writes nothing', async () => {
    const d = await startTestDaemon();
    try {
      const db = d.daemon.paths.database;
      assert.ok(fs.existsSync(`${db}-wal`), 'the daemon holds chat.db in WAL mode');
      // -shm is left out: it is the readers' shared lock memory, which any reader takes a mark in.
      const before = ['', '-wal'].map((s) => fs.readFileSync(db + s));
      const r = await runLeoAsync(['doctor'], { ...process.env, LEO_HOME: d.home, LEO_USER_HOME: d.home });
      assert.match(
        line(r.stdout, 'database'),
        new RegExp(`^ok\\s.*\\(schema ${migrations.length} of ${migrations.length}\\)`),
        r.stdout,
      );
      assert.deepEqual(
        ['', '-wal'].map((s) => fs.readFileSync(db + s)),
        before,
        'chat.db and its log are as they were',
      );
    } finally {
      await d.stop();
    }
  });
});
