// A daemon restart adopts an agent's live tmux session (Supervisor.restore): the agent is the same process, so its
// started_at must be the start it had under the last daemon, not the moment of adoption.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { killTmuxServer } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';

const CONFIG = testConfig(`
templates:
  sleeper: { harness: shell, command: "exec sleep 600" }
`);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a daemon restart with a live agent', () => {
  it('keeps the agent’s started_at (and its process)', async () => {
    const t = makeTempHome(CONFIG);
    const start = () => startDaemon({ env: t.env, clock: systemClock, logger: createLogger('silent') });
    const agentOf = async (d: Daemon) =>
      (await request({ port: d.port }, 'GET', '/api/v1/state', { token: d.operatorToken })).json.data.agents.find(
        (a: { name: string }) => a.name === 'keep',
      );
    let d = await start();
    try {
      const spawned = await request({ port: d.port }, 'POST', '/api/v1/agents/spawn', {
        token: d.operatorToken,
        body: { template: 'sleeper', name: 'keep' },
      });
      assert.equal(spawned.status, 201, spawned.text);
      const before = await agentOf(d);
      assert.equal(before.status, 'running');
      // Long enough that the adoption time is a different second from the start on the wire (RFC 3339 seconds).
      await sleep(2500);
      await d.close();
      d = await start();
      const after = await agentOf(d);
      assert.equal(after.status, 'running');
      assert.equal(after.restarts, 0, 'adopted, not restarted');
      // tmux keeps a session's creation time in whole seconds, taken just before Leo marked the agent started.
      const drift = Date.parse(before.started_at) - Date.parse(after.started_at);
      assert.ok(drift >= 0 && drift <= 1000, `started_at ${before.started_at} → ${after.started_at}`);
    } finally {
      await d.close();
      killTmuxServer(t.home);
      t.cleanup();
    }
  });
});
