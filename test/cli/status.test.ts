import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fs from 'node:fs';
import path from 'node:path';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import { LEO_VERSION } from '../../src/core/version.js';
import { runLeoAsync } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTempHome, tempDir, testConfig } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('leo status', () => {
  let t: TestDaemon;
  let clock: ManualClock;
  let env: NodeJS.ProcessEnv;
  let mcp: Client;

  before(async () => {
    clock = new ManualClock(Date.now());
    t = await startTestDaemon({ config: CONFIG, clock });
    env = { ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home };
    for (const name of ['den', 'scout', 'idle-one'])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name })).status, 201);
    assert.equal((await t.op('POST', '/api/v1/agents/idle-one/stop')).status, 200);
    // den asks its owner something, as an agent does through Leo's MCP tools, and waits for the answer.
    mcp = new Client({ name: 'test', version: '1' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.daemon.port}/api/agent/den/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${t.daemon.agentToken}` } },
      }),
    );
    void mcp
      .callTool({ name: 'leo_chat_ask', arguments: { question: 'Ship the release branch?', options: ['Yes', 'No'] } })
      .catch(() => {});
    await until('the open ask', async () => (await t.op('GET', '/api/v1/chat/open')).json.data.length === 1, 10_000);
    clock.advance(125_000);
  });
  after(async () => {
    await mcp.close();
    await t.stop();
  });

  it('one screen: version, uptime, listeners, the fleet by status and activity, open asks, runs, warnings', async () => {
    const r = await runLeoAsync(['status'], env);
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const out = r.stdout;
    assert.match(out, new RegExp(`^leo ${LEO_VERSION}: running · pid ${process.pid} · up 2m 05s`, 'm'));
    assert.ok(out.includes(`127.0.0.1:${t.daemon.port}`), out);
    assert.ok(out.includes(`socket ${t.daemon.paths.socketFile}`), out);
    assert.ok(out.includes(`app ${t.daemon.appUrl}`), out);
    assert.match(out, /^agents \(3\): 2 running \(2 \w+\), 1 stopped$/m);
    assert.match(out, /^ {2}den\s+running\s.*\sshell(\s|$)/m, 'a shell agent has no model to name');
    assert.match(out, /^ {2}idle-one\s+stopped/m);
    assert.match(out, /^waiting on you \(1\): 1 ask\(s\), 0 permission prompt\(s\)$/m);
    assert.match(out, /^ {2}den\s+ask\s+Ship the release branch\?\s+2m 05s ago$/m);
    assert.match(out, /^task runs: none yet \(0 task\(s\)\)$/m);
    // The test home has no whisper model configured: the doctor's warning shows.
    assert.match(out, /^doctor \(\d+\):$/m);
    assert.match(out, /^ {2}missing\s+whisper model: chat\.whisper_model is not set/m);
    assert.ok(out.split('\n').length < 40, 'fits one screen');
  });

  it('--json: the same, for scripts', async () => {
    const r = await runLeoAsync(['status', '--json'], env);
    assert.equal(r.status, 0, r.stderr);
    const s = JSON.parse(r.stdout);
    assert.equal(s.running, true);
    assert.equal(s.daemon.leo_version, LEO_VERSION);
    assert.equal(s.daemon.uptime_s, 125);
    assert.equal(s.daemon.listeners.socket, t.daemon.paths.socketFile);
    assert.deepEqual(s.state.agents.map((a: { name: string }) => a.name).sort(), ['den', 'idle-one', 'scout']);
    assert.deepEqual(
      s.open.map((m: { agent: string; kind: string; state: string }) => [m.agent, m.kind, m.state]),
      [['den', 'ask', 'open']],
    );
    assert.ok(s.warnings.some((w: { name: string }) => w.name === 'whisper model'));
  });

  it('no daemon: says so and how to start it, exits 1 (--json too)', async () => {
    const home = makeTempHome();
    try {
      const r = await runLeoAsync(['status'], home.env);
      assert.equal(r.status, 1);
      assert.match(
        r.stderr,
        /^leo status: the daemon is not running \(no answer on .*leo\.sock\); start it with `leo daemon`/,
      );
      assert.equal(r.stdout, '');
      const j = await runLeoAsync(['status', '--json'], home.env);
      assert.equal(j.status, 1);
      assert.equal(JSON.parse(j.stdout).running, false);
    } finally {
      home.cleanup();
    }
  });

  it("judges the CLIs by the daemon's PATH, not the calling shell's", async () => {
    // A codex on the daemon's PATH only, and one on the calling shell's only.
    const bins = tempDir('leo-status-bins-');
    for (const side of ['daemon', 'shell']) {
      fs.mkdirSync(path.join(bins, side));
      fs.writeFileSync(path.join(bins, side, 'codex'), '#!/bin/sh\necho codex-cli 0.0.0\n', { mode: 0o755 });
    }
    const codexWarning = (s: { warnings: { name: string }[] }) => s.warnings.some((w) => w.name === 'codex CLI');
    const status = async (daemonPath: string, shellPath: string) => {
      const home = makeTempHome(testConfig('templates:\n  coder: { harness: codex }\n'));
      const daemon = await startDaemon({ env: { ...home.env, PATH: daemonPath }, logger: createLogger('warn') });
      try {
        const r = await runLeoAsync(['status', '--json'], { ...home.env, PATH: shellPath });
        assert.equal(r.status, 0, r.stderr);
        return JSON.parse(r.stdout);
      } finally {
        await daemon.close();
        home.cleanup();
      }
    };
    const sys = process.env.PATH ?? '';
    const found = await status(`${path.join(bins, 'daemon')}:${sys}`, sys);
    assert.equal(codexWarning(found), false, JSON.stringify(found.warnings));
    const missing = await status(sys, `${path.join(bins, 'shell')}:${sys}`);
    assert.equal(codexWarning(missing), true, JSON.stringify(missing.warnings));
    assert.equal(missing.daemon.warnings, undefined, 'the warnings are listed once, at the top');
  });
});
