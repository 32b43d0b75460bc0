// Issue 14 items 3 and 7 through the real daemon: a harness CLI that is not installed refuses the spawn (instead of
// a pane exiting 127 on every restart), a non-shell template's `command` is the program run, `leo doctor` checks
// the CLIs on the agents' PATH, and an agent that exits at every start ends stopped with the reason in its thread,
// in /state and in `leo agent list`.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ManualClock } from '../../src/core/clock.js';
import { parseConfig } from '../../src/config/load.js';
import { checkHarness } from '../../src/doctor/checks.js';
import { startTestDaemon, paneText } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { runLeoAsync } from '../helpers/cli.js';
import { until } from '../helpers/wait.js';

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-programs-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A daemon with one template whose program exits at every start: the agent spawned from it, once the daemon gave up
 * on it (each look moves the manual clock past the crash back-off).
 */
async function spawnUntilStopped(t: { after(fn: () => Promise<void>): void }, template: string, command: string) {
  const d = await startTestDaemon({
    config: `templates:\n  ${template}:\n    harness: shell\n    command: ${JSON.stringify(command)}\n`,
  });
  t.after(() => d.stop());
  const token = d.daemon.operatorToken;
  const clock = d.clock as ManualClock;
  const spawned = await request(d.tcp, 'POST', '/api/v1/agents/spawn', { token, body: { template, name: template } });
  assert.equal(spawned.status, 201, spawned.text);
  const agent = await until(
    `the daemon to give up on ${template}`,
    async () => {
      clock.advance(10_000);
      const s = await request(d.tcp, 'GET', '/api/v1/state', { token });
      const a = s.json.data.agents.find((x: { name: string }) => x.name === template);
      return a.status === 'stopped' ? a : undefined;
    },
    40_000,
    200,
  );
  return { d, token, agent };
}

describe('harness programs', () => {
  it('a spawn is refused with 400 naming the missing program and how to install it; a template command is the program run', async (t) => {
    const dir = tempDir(t);
    const fake = path.join(dir, 'my-claude-build');
    fs.writeFileSync(fake, '#!/bin/sh\necho "fake claude got: $*"\nexec sleep 60\n', { mode: 0o755 });
    const d = await startTestDaemon({
      config: [
        'environments:',
        `  bare: { PATH: ${JSON.stringify(dir)} }`,
        'templates:',
        '  cx:',
        '    harness: codex',
        '    environments: [bare]',
        '  oc:',
        '    harness: opencode',
        '    environments: [bare]',
        '  custom:',
        '    harness: claude',
        `    command: ${JSON.stringify(fake)}`,
        '',
      ].join('\n'),
    });
    t.after(() => d.stop());
    const token = d.daemon.operatorToken;
    const spawn = (template: string, name: string) =>
      request(d.tcp, 'POST', '/api/v1/agents/spawn', { token, body: { template, name } });

    const cx = await spawn('cx', 'cx1');
    assert.equal(cx.status, 400, cx.text);
    assert.match(cx.json.error, /the codex harness cannot start: no "codex" on the agent's PATH/);
    assert.match(cx.json.error, /npm install -g @openai\/codex/);
    const oc = await spawn('oc', 'oc1');
    assert.equal(oc.status, 400, oc.text);
    assert.match(oc.json.error, /no "opencode" on the agent's PATH.*npm install -g opencode-ai/);
    // Nothing was left behind by a refused spawn.
    const list = await request(d.tcp, 'GET', '/api/v1/agents', { token });
    assert.deepEqual(list.json.data, []);

    const custom = await spawn('custom', 'custom1');
    assert.equal(custom.status, 201, custom.text);
    await until(
      'the template command to run with the harness arguments',
      () => paneText(d.home, 'custom1').includes('fake claude got: --settings'),
      10_000,
    );
  });

  it('a non-shell template command must be one program, not a shell line', () => {
    const r = parseConfig('templates:\n  c:\n    harness: codex\n    command: codex --yolo\n', {
      file: 'leo.yaml',
      home: os.homedir(),
    });
    assert.equal(r.ok, false);
    assert.match(
      JSON.stringify(!r.ok && r.errors),
      /templates\.c\.command.*names the program to run instead of `codex`/,
    );
  });

  it('leo doctor checks each harness CLI on the PATH its templates give their agents', (t) => {
    const dir = tempDir(t);
    fs.writeFileSync(path.join(dir, 'claude'), '#!/bin/sh\n', { mode: 0o755 });
    const r = parseConfig(
      [
        'environments:',
        `  mine: { PATH: ${JSON.stringify(dir)} }`,
        'templates:',
        '  a: { harness: claude, environments: [mine] }',
        '  b: { harness: codex, environments: [mine] }',
        '',
      ].join('\n'),
      { file: 'leo.yaml', home: os.homedir() },
    );
    assert.ok(r.ok);
    const claude = checkHarness('claude', r.config, '/nonexistent');
    assert.equal(claude.status, 'ok');
    assert.equal(claude.detail, path.join(dir, 'claude'));
    const codex = checkHarness('codex', r.config, '/nonexistent');
    assert.equal(codex.status, 'missing');
    assert.equal(codex.required, true);
    assert.match(codex.detail, /template b: .*no "codex"/);
    assert.match(codex.fix ?? '', /npm install -g @openai\/codex/);
    const opencode = checkHarness('opencode', r.config, '/nonexistent');
    assert.equal(opencode.required, false, 'no template uses it');
  });

  it('an agent whose program exits at every start ends stopped, with the reason in its thread, /state and leo agent list', async (t) => {
    const { d, token, agent } = await spawnUntilStopped(
      t,
      'brk',
      "echo 'fatal: cannot open ~/.config/tool.toml' >&2; exit 3",
    );
    assert.equal(agent.wake_on_message, false);
    // (The status is there when tmux had marked the pane dead by the time it was read.)
    assert.match(agent.stop_reason, /exited 5 times in a row soon after starting \((exit 3: )?fatal: cannot open/);
    const th = await request(d.tcp, 'GET', '/api/v1/chat/brk/messages', { token });
    const notes = th.json.data.messages.filter((m: { kind: string }) => m.kind === 'system');
    assert.equal(notes.length, 1);
    assert.match(notes[0].text, /brk was stopped: it exited 5 times.*fatal: cannot open/);
    const listed = await runLeoAsync(['agent', 'list'], { ...process.env, LEO_HOME: d.home });
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /brk\s+stopped.*\n\s+stopped by Leo: it exited 5 times/);
  });

  it('a program silent at its last start is stopped with what it said at an earlier one', async (t) => {
    const dir = tempDir(t);
    const count = path.join(dir, 'starts');
    // Says why at its first four starts only, as a pty that lost the last write would show it.
    const command = `n=$(cat ${count} 2>/dev/null || echo 0); echo $((n+1)) > ${count}; [ $n -lt 4 ] && echo 'fatal: no token' >&2; exit 4`;
    const { agent } = await spawnUntilStopped(t, 'qt', command);
    assert.equal(fs.readFileSync(count, 'utf8').trim(), '5');
    assert.match(agent.stop_reason, /exited 5 times in a row soon after starting \((exit 4: )?fatal: no token\)/);
  });
});
