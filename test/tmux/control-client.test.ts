import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { CONTROL_SESSION, TmuxControlClient } from '../../src/tmux/control-client.js';
import { alive, until } from '../helpers/wait.js';

describe('TmuxControlClient against a real tmux server', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tmux-control-'));
  const prefix = ['-S', path.join(dir, 'tmux.sock'), '-f', '/dev/null'];
  const env = { ...process.env, TMUX: undefined };
  const client = new TmuxControlClient({ bin: 'tmux', prefix, env, timeoutMs: 5000 });
  after(async () => {
    await client.run([['kill-server']]);
    client.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('carries every character a word can hold to tmux byte for byte', async () => {
    const controls = Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('');
    const text = `${controls}\u007f "quoted" 'single' \\ $HOME #{pane_id} ~/x ; {brace} é 日本 😀\n`.repeat(3000);
    const file = path.join(dir, 'buffer.out');
    const r = await client.run([
      ['set-buffer', '-b', 'words', '--', text],
      ['save-buffer', '-b', 'words', file],
      ['delete-buffer', '-b', 'words'],
    ]);
    assert.deepEqual(r, { code: 0, stdout: '', stderr: '' });
    assert.ok(text.length > 200_000);
    assert.equal(fs.readFileSync(file, 'utf8'), text);
  });

  it('pairs answers with calls in order when many are in flight', async () => {
    const results = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        client.run(
          i % 7 === 3
            ? [
                ['display-message', '-p', `before ${i}`],
                ['has-session', '-t', `=ghost-${i}`],
                ['display-message', 'x'],
              ]
            : [
                ['display-message', '-p', `call ${i}`],
                ['display-message', '-p', `again ${i}`],
              ],
        ),
      ),
    );
    results.forEach((r, i) =>
      assert.deepEqual(
        r,
        i % 7 === 3
          ? { code: 1, stdout: `before ${i}\n`, stderr: `can't find session: ghost-${i}\n` }
          : { code: 0, stdout: `call ${i}\nagain ${i}\n`, stderr: '' },
      ),
    );
  });

  it('sits in a session of its own, and a parse error fails only its own call', async () => {
    const r = await client.run([['list-sessions', '-F', '#{session_name}']]);
    assert.equal(r.stdout, `${CONTROL_SESSION}\n`);
    const bad = await client.run([['no-such-command']]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /unknown command: no-such-command/);
    assert.equal((await client.run([['display-message', '-p', 'next']])).stdout, 'next\n');
  });

  it('a call tmux does not answer in time fails, and the next call gets a new client', async () => {
    const impatient = new TmuxControlClient({ bin: 'tmux', prefix, env, timeoutMs: 300 });
    const pid = Number((await client.run([['display-message', '-p', '#{pid}']])).stdout);
    try {
      process.kill(pid, 'SIGSTOP');
      const stuck = impatient.run([['display-message', '-p', 'never answered']]);
      const behind = impatient.run([['display-message', '-p', 'queued behind it']]);
      assert.deepEqual(await stuck, { code: 1, stdout: '', stderr: 'tmux did not answer within 300 ms\n' });
      assert.equal((await behind).code, 1);
      process.kill(pid, 'SIGCONT');
      assert.deepEqual(await impatient.run([['display-message', '-p', 'fresh']]), {
        code: 0,
        stdout: 'fresh\n',
        stderr: '',
      });
    } finally {
      process.kill(pid, 'SIGCONT');
      impatient.close();
    }
  });

  it('survives the server being killed: that call answers, the next starts a server again', async () => {
    const own = path.join(dir, 'own.sock');
    const c = new TmuxControlClient({ bin: 'tmux', prefix: ['-S', own, '-f', '/dev/null'], env, timeoutMs: 5000 });
    try {
      assert.equal((await c.run([['new-session', '-d', '-s', 'x', 'sleep 30']])).code, 0);
      const pid = Number((await c.run([['display-message', '-p', '#{pid}']])).stdout);
      assert.equal((await c.run([['kill-server']])).code, 0);
      await until('the old server to exit', () => !alive(pid), 5000, 20);
      const r = await c.run([['list-sessions', '-F', '#{session_name}']]);
      assert.deepEqual(r, { code: 0, stdout: `${CONTROL_SESSION}\n`, stderr: '' });
    } finally {
      await c.run([['kill-server']]);
      c.close();
    }
  });

  it('refuses stdin, words it cannot carry, and calls after close; a missing tmux rejects like exec', async () => {
    await assert.rejects(client.run([['load-buffer', '-']], 'text'), /no standard input/);
    await assert.rejects(client.run([['set-buffer', '--', 'a\0b']]), /NUL/);
    const missing = new TmuxControlClient({ bin: path.join(dir, 'no-tmux'), prefix, env, timeoutMs: 1000 });
    await assert.rejects(missing.run([['list-sessions']]), { code: 'ENOENT' });
    missing.close();
    await assert.rejects(missing.run([['list-sessions']]), /closed/);
  });
});
