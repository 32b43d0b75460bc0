import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Exec, ExecOptions, ExecResult } from '../../src/core/exec.js';
import { Tmux, TmuxError, assertSessionName } from '../../src/tmux/tmux.js';

interface Call {
  file: string;
  args: readonly string[];
  opts: ExecOptions | undefined;
}

/**
 * An exec that records every call and answers with `answer`'s result (default: success, no output, except that a
 * command file on stdin gets its closing nonce printed back, as tmux does once every command in it has run).
 */
function fakeExec(answer: (args: readonly string[]) => Partial<ExecResult> = () => ({})): {
  exec: Exec;
  calls: Call[];
} {
  const calls: Call[] = [];
  const exec: Exec = async (file, args, opts) => {
    calls.push({ file, args, opts });
    const nonce = / 'display-message' '-p' '([^']+)'\n$/.exec(opts?.input ?? '')?.[1];
    return { code: 0, stdout: nonce ? `${nonce}\n` : '', stderr: '', ...answer(args) };
  };
  return { exec, calls };
}

const PREFIX = ['-S', '/run/leo/tmux.sock', '-f', '/dev/null'];
/** How the commands that carry an agent's environment are run: a command file on stdin, nothing secret in argv. */
const FROM_STDIN = ['start-server', ';', 'source-file', '-'];
const words = (...w: string[]) => w.map((x) => `'${x}'`).join(' ');

describe('Tmux over the exec seam', () => {
  it('always talks to the private socket with no config file, and without TMUX', async () => {
    const { exec, calls } = fakeExec();
    const tmux = new Tmux({ socketPath: '/run/leo/tmux.sock', exec, tmuxBin: '/opt/tmux' });
    await tmux.hasSession('den');
    assert.equal(calls[0]?.file, '/opt/tmux');
    assert.deepEqual(calls[0]?.args, [...PREFIX, 'has-session', '-t', '=den']);
    assert.equal(calls[0]?.opts?.env?.TMUX, undefined);
  });

  it('new-session sets the server options first, in the same call, and runs the argv through /bin/sh', async () => {
    const { exec, calls } = fakeExec();
    const tmux = new Tmux({ socketPath: '/run/leo/tmux.sock', exec });
    await tmux.newSession({
      name: 'leo-den',
      cwd: '/work/#1',
      command: ['claude', '--append-system-prompt', 'say; $HOME'],
      env: { LEO_AGENT: 'den', TRAILING: 'x;' },
    });
    assert.deepEqual(calls[0]?.args, [...PREFIX, ...FROM_STDIN]);
    const script = calls[0]?.opts?.input ?? '';
    const nonce = /'(leo-ok-[0-9a-f]{16})'\n$/.exec(script)?.[1];
    assert.ok(nonce, script);
    assert.equal(
      script,
      [
        words('set-option', '-g', 'history-limit', '5000'),
        words('set-option', '-gw', 'remain-on-exit', 'on'),
        words('set-option', '-s', 'exit-empty', 'off'),
        words(
          ...['new-session', '-d', '-s', 'leo-den', '-c', '/work/##1', '-x', '200', '-y', '50'],
          ...['-e', 'LEO_AGENT=den', '-e', 'TRAILING=x;', '--', '/bin/sh', '-c'],
        ) + ` 'exec claude --append-system-prompt '"'"'say; $HOME'"'"''`,
        words('display-message', '-p', nonce),
      ].join(' ; ') + '\n',
    );
  });

  it('a command file tmux did not run to its end is a failure, even with exit status 0', async () => {
    const { exec } = fakeExec(() => ({ code: 0, stdout: '' }));
    await assert.rejects(
      new Tmux({ socketPath: '/s', exec }).newSession({ name: 'den', cwd: '/', command: ['x'] }),
      (err: unknown) => err instanceof TmuxError && /did not run the commands/.test(err.message),
    );
  });

  it('throws with tmux stderr when a command fails', async () => {
    const { exec } = fakeExec(() => ({ code: 1, stderr: 'duplicate session: den\n' }));
    const tmux = new Tmux({ socketPath: '/s', exec });
    await assert.rejects(tmux.newSession({ name: 'den', cwd: '/', command: ['x'] }), (err: unknown) => {
      assert.ok(err instanceof TmuxError);
      assert.match(err.message, /duplicate session: den/);
      return true;
    });
  });

  it('no server running is an empty list, not an error; other failures throw', async () => {
    for (const stderr of ['no server running on /s\n', 'error connecting to /s (No such file or directory)\n']) {
      const tmux = new Tmux({ socketPath: '/s', exec: fakeExec(() => ({ code: 1, stderr })).exec });
      assert.deepEqual(await tmux.listSessions(), []);
    }
    const broken = new Tmux({ socketPath: '/s', exec: fakeExec(() => ({ code: 1, stderr: 'boom' })).exec });
    await assert.rejects(broken.listSessions(), /boom/);
  });

  it('list-sessions is one call that parses every session', async () => {
    const { exec, calls } = fakeExec(() => ({
      stdout: '10\t12\t0\t99\t0\t\t\t5\tden\n10\t10\t1\t98\t1\t2\t\t5\tboom\n',
    }));
    const sessions = await new Tmux({ socketPath: '/s', exec }).listSessions();
    assert.equal(calls.length, 1);
    assert.deepEqual(
      sessions.map((s) => [s.name, s.activity, s.paneDead, s.deadStatus]),
      [
        ['den', 12, false, null],
        ['boom', 10, true, 2],
      ],
    );
  });

  it('kill-session reports whether the session existed', async () => {
    const gone = new Tmux({
      socketPath: '/s',
      exec: fakeExec(() => ({ code: 1, stderr: "can't find session: x" })).exec,
    });
    assert.equal(await gone.killSession('x'), false);
    const noServer = new Tmux({
      socketPath: '/s',
      exec: fakeExec(() => ({ code: 1, stderr: 'no server running' })).exec,
    });
    assert.equal(await noServer.killSession('x'), false);
    assert.equal(await new Tmux({ socketPath: '/s', exec: fakeExec().exec }).killSession('x'), true);
  });

  it('targets panes as =session: and captures with joined lines', async () => {
    const { exec, calls } = fakeExec(() => ({ stdout: '1\nline\n> typed\n\n' }));
    const tmux = new Tmux({ socketPath: '/s', exec });
    assert.equal(await tmux.capturePane('den', 20), '1\nline\n> typed\n\n');
    await tmux.sendEnter('den');
    assert.equal(await tmux.cursorLine('den', { thenEnter: true }), '> typed', 'the row display-message names');
    await tmux.renameSession('den', 'den2');
    assert.deepEqual(
      calls.map((c) => c.args.slice(4)),
      [
        ['capture-pane', '-p', '-J', '-t', '=den:', '-S', '-20'],
        ['send-keys', '-t', '=den:', 'Enter'],
        [
          ...['display-message', '-p', '-t', '=den:', '#{cursor_y}', ';'],
          ...['capture-pane', '-p', '-t', '=den:', ';', 'send-keys', '-t', '=den:', 'Enter'],
        ],
        ['rename-session', '-t', '=den', '--', 'den2'],
      ],
    );
  });

  // A paste deletes its buffer (-d); delete-buffer after it finds nothing unless the paste was skipped.
  const pasted = (args: readonly string[]) =>
    args.includes('delete-buffer') ? { code: 1, stderr: 'unknown buffer: x' } : {};

  it('pastes through a buffer of its own, the text on stdin, into a pane only while it is alive', async () => {
    const { exec, calls } = fakeExec(pasted);
    const tmux = new Tmux({ socketPath: '/s', exec });
    await tmux.pasteText('den', 'hello\nworld');
    await tmux.pasteText('den', 'raw', { bracketed: false });
    await tmux.pasteText('den', '');
    assert.equal(calls.length, 4);
    const [a, check, b] = calls;
    const buf = a?.args[6];
    assert.match(String(buf), /^leo-paste-[0-9a-f]{16}$/);
    assert.deepEqual(a?.args.slice(4), [
      'load-buffer',
      '-b',
      buf,
      '-',
      ';',
      'if-shell',
      '-F',
      '-t',
      '=den:',
      '#{pane_dead}',
      `'set-option' '-p' '-t' '=den:' '@leo-paste-skipped' '1'`,
      `'paste-buffer' '-p' '-d' '-b' '${buf}' '-t' '=den:'`,
    ]);
    assert.equal(a?.opts?.input, 'hello\nworld');
    assert.deepEqual(check?.args.slice(4), ['delete-buffer', '-b', buf]);
    assert.notEqual(b?.args[6], buf);
    assert.ok(!b?.args.at(-1)?.includes("'-p'"));
  });

  it('says so when the pane had died and nothing was pasted (its buffer is still there)', async () => {
    const { exec } = fakeExec();
    await assert.rejects(new Tmux({ socketPath: '/s', exec }).pasteText('den', 'x'), /has exited: nothing was pasted/);
  });

  it('a failed paste removes its buffer and throws', async () => {
    const { exec, calls } = fakeExec((args) =>
      args.includes('load-buffer') ? { code: 1, stderr: "can't find pane: =den:" } : pasted(args),
    );
    await assert.rejects(new Tmux({ socketPath: '/s', exec }).pasteText('den', 'x'), /can't find pane/);
    assert.deepEqual(calls[1]?.args.slice(4, 6), ['delete-buffer', '-b']);
  });

  it('refuses session names tmux would rewrite or misread, and bad env names', async () => {
    for (const bad of ['', 'a.b', 'a:b', '-x', 'a b', '#{x}', 'a\tb', 'x'.repeat(129)])
      assert.throws(() => assertSessionName(bad), /invalid tmux session name/, bad);
    for (const good of ['den', 'leo-den', 'a_b', '0', 'x'.repeat(128)]) assertSessionName(good);
    const tmux = new Tmux({ socketPath: '/s', exec: fakeExec().exec });
    await assert.rejects(tmux.hasSession('a.b'), /invalid tmux session name/);
    await assert.rejects(
      tmux.newSession({ name: 'a', cwd: '/', command: ['x'], env: { 'A-B': '1' } }),
      /variable name/,
    );
  });
});
