import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { builtinTools, runTool, toolSchemas, type ToolContext } from '../../src/sessions/tools/index.js';
import { alive } from '../helpers/wait.js';

describe('built-in session tools', () => {
  let root: string;
  let ws: string;
  let denied: string;
  const secret = 'TOP-SECRET-CONTENT';

  before(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tools-'));
    ws = path.join(root, 'ws');
    denied = path.join(ws, 'state');
    const outside = path.join(root, 'outside');
    fs.mkdirSync(path.join(ws, 'src'), { recursive: true });
    fs.mkdirSync(denied);
    fs.mkdirSync(outside);
    fs.writeFileSync(path.join(ws, 'README.md'), 'x'.repeat(1234));
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'hello');
    fs.writeFileSync(path.join(ws, 'src', 'a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(ws, 'bin.dat'), Buffer.from([1, 0, 2, 3]));
    fs.writeFileSync(path.join(ws, 'big.txt'), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}\n`).join(''));
    fs.writeFileSync(path.join(denied, 'api.token'), secret);
    fs.writeFileSync(path.join(outside, 'secret.txt'), secret);
    fs.symlinkSync(outside, path.join(ws, 'link-out'));
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link-secret'));
    fs.symlinkSync(path.join(denied, 'api.token'), path.join(ws, 'link-denied'));
    fs.symlinkSync(path.join(ws, 'src'), path.join(ws, 'link-in'));
  });
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  function context(signal = new AbortController().signal) {
    const output: { content: string; at: number }[] = [];
    const ctx: ToolContext = {
      workspace: ws,
      env: { LEO_TEST_AGENT_VAR: 'from-the-agent-environment' },
      deniedRoots: [denied],
      signal,
      output: (content) => output.push({ content, at: Date.now() }),
    };
    return { ctx, output };
  }
  const call = (name: string, args: unknown, ctx = context().ctx) =>
    runTool(builtinTools, name, JSON.stringify(args), ctx);

  describe('list_dir', () => {
    it('lists entries by name, directories with a slash, files with their size, links followed only inside', async () => {
      const big = fs.statSync(path.join(ws, 'big.txt')).size;
      assert.deepEqual(await call('list_dir', {}), {
        success: true,
        content: [
          'README.md (1.2KB)',
          `big.txt (${(big / 1024).toFixed(1)}KB)`,
          'bin.dat (4B)',
          'link-denied (link, not followed)',
          'link-in/',
          'link-out (link, not followed)',
          'link-secret (link, not followed)',
          'notes.txt (5B)',
          'src/',
          'state/',
        ].join('\n'),
      });
      assert.deepEqual(await call('list_dir', { dir: 'link-in' }), { success: true, content: 'a.ts (20B)' });
    });

    // OUTSIDE stands for the absolute path of a folder next to the workspace, known only once it exists.
    for (const dir of ['..', '../outside', 'link-out', 'state', 'OUTSIDE', '/etc']) {
      it(`refuses ${dir}`, async () => {
        const r = await call('list_dir', { dir: dir === 'OUTSIDE' ? path.join(root, 'outside') : dir });
        assert.equal(r.success, false);
        assert.match(r.content, /^Error: access denied/);
      });
    }

    it('says so when the directory does not exist', async () => {
      assert.deepEqual(await call('list_dir', { dir: 'nope' }), {
        success: false,
        content: 'Error: no such file or directory: nope',
      });
    });
  });

  describe('read_file', () => {
    it('reads a file by relative or absolute path, and through a link that stays inside', async () => {
      const want = { success: true, content: 'export const a = 1;' };
      assert.deepEqual(await call('read_file', { path: 'src/a.ts' }), want);
      assert.deepEqual(await call('read_file', { path: path.join(ws, 'src', 'a.ts') }), want);
      assert.deepEqual(await call('read_file', { path: 'link-in/a.ts' }), want);
    });

    it('caps what it returns and says where to read on', async () => {
      const head = await call('read_file', { path: 'big.txt' });
      const lines = head.content.split('\n');
      assert.equal(lines.length, 2001);
      assert.equal(lines[1999], 'line 2000');
      assert.equal(lines[2000], '[lines 1–2000 of 3000; continue with offset 2001]');
      assert.deepEqual(await call('read_file', { path: 'big.txt', offset: 2999 }), {
        success: true,
        content: 'line 2999\nline 3000\n[lines 2999–3000 of 3000]',
      });
      assert.equal(
        (await call('read_file', { path: 'big.txt', offset: 10, limit: 2 })).content,
        'line 10\nline 11\n[lines 10–11 of 3000; continue with offset 12]',
      );
    });

    it('describes a binary file instead of dumping it, and points a directory at list_dir', async () => {
      assert.deepEqual(await call('read_file', { path: 'bin.dat' }), {
        success: true,
        content: 'bin.dat is a binary file (4B); not shown',
      });
      assert.deepEqual(await call('read_file', { path: 'src' }), {
        success: false,
        content: 'Error: src is a directory; use list_dir',
      });
    });

    for (const p of [
      '../outside/secret.txt',
      'src/../../outside/secret.txt',
      'link-secret',
      'link-out/secret.txt',
      'link-denied',
      'state/api.token',
      '/etc/passwd',
    ]) {
      it(`refuses ${p}`, async () => {
        const r = await call('read_file', { path: p });
        assert.equal(r.success, false);
        assert.match(r.content, /^Error: access denied/);
        assert.doesNotMatch(r.content, new RegExp(secret));
      });
    }
  });

  describe('bash', () => {
    it('runs in the workspace and streams output while the command still runs', async () => {
      const { ctx, output } = context();
      const r = await call('bash', { command: 'pwd; sleep 0.4; echo done' }, ctx);
      const finished = Date.now();
      assert.deepEqual(r, { success: true, content: `${fs.realpathSync(ws)}\ndone\n[exit code 0]` });
      assert.equal(output[0]?.content, `${fs.realpathSync(ws)}\n`);
      assert.ok(finished - output[0]!.at >= 300, 'the first line arrived before the command ended');
    });

    it("sees the agent's environment, as its tmux session would", async () => {
      const r = await call('bash', { command: 'echo "$LEO_TEST_AGENT_VAR"' });
      assert.deepEqual(r, { success: true, content: 'from-the-agent-environment\n[exit code 0]' });
    });

    it('reports a failing exit code with stderr in the output', async () => {
      assert.deepEqual(await call('bash', { command: 'echo oops >&2; exit 3' }), {
        success: false,
        content: 'oops\n[exit code 3]',
      });
    });

    it('returns the tail of a long output', async () => {
      const r = await call('bash', { command: 'seq 1 100000' });
      assert.match(r.content, /^\[… \d+ earlier characters cut\]\n/);
      assert.ok(r.content.endsWith('99999\n100000\n[exit code 0]'));
      assert.ok(r.content.length < 21_000);
    });

    it('kills the whole process group on timeout', async () => {
      const r = await call('bash', { command: 'sleep 30 & echo child=$!; wait', timeout_s: 0.5 });
      assert.equal(r.success, false);
      assert.match(r.content, /^child=\d+\n\[timed out after 0.5s; killed\]$/);
      assert.equal(alive(Number(/child=(\d+)/.exec(r.content)![1])), false);
    });

    it('kills what the command left running in the background when it exits', async () => {
      const r = await call('bash', { command: 'sleep 30 & echo child=$!' });
      assert.equal(r.success, true);
      assert.equal(alive(Number(/child=(\d+)/.exec(r.content)![1])), false);
    });
  });

  describe('sleep', () => {
    it('sleeps, and wakes early when the turn is cancelled', async () => {
      assert.deepEqual(await call('sleep', { seconds: 0.05 }), { success: true, content: 'Slept 0.05s.' });
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 50);
      const started = Date.now();
      const r = await call('sleep', { seconds: 30 }, context(ctl.signal).ctx);
      assert.ok(Date.now() - started < 2000);
      assert.equal(r.success, false);
      assert.match(r.content, /^Interrupted after 0\.\ds/);
    });

    it('refuses more than 60 seconds', async () => {
      const r = await call('sleep', { seconds: 61 });
      assert.equal(r.success, false);
      assert.match(r.content, /^Error: invalid arguments for sleep:\n.*60/);
    });
  });

  describe('runTool', () => {
    it('answers unknown tools and unparsable arguments with an error result instead of throwing', async () => {
      assert.deepEqual(await runTool(builtinTools, 'rm_rf', '{}', context().ctx), {
        success: false,
        content: 'Error: unknown tool rm_rf; available: list_dir, read_file, bash, sleep',
      });
      assert.deepEqual(await runTool(builtinTools, 'read_file', '{"path": ', context().ctx), {
        success: false,
        content: 'Error: the arguments of read_file are not valid JSON: {"path": ',
      });
    });

    it('takes empty arguments as none', async () => {
      assert.equal((await runTool(builtinTools, 'list_dir', '', context().ctx)).success, true);
    });
  });

  it('describes every tool as an OpenAI function with a JSON schema of its parameters', () => {
    const schemas = toolSchemas(builtinTools);
    assert.deepEqual(
      schemas.map((s) => [s.type, s.function.name]),
      [
        ['function', 'list_dir'],
        ['function', 'read_file'],
        ['function', 'bash'],
        ['function', 'sleep'],
      ],
    );
    const readFile = schemas[1]!.function.parameters as any;
    assert.equal(readFile.$schema, undefined);
    assert.equal(readFile.type, 'object');
    assert.deepEqual(readFile.required, ['path']);
    assert.deepEqual(Object.keys(readFile.properties), ['path', 'offset', 'limit']);
    assert.equal((schemas[3]!.function.parameters as any).properties.seconds.maximum, 60);
  });
});
