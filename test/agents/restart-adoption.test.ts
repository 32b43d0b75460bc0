// A daemon restart adopts an agent's live tmux session (Supervisor.restore): the agent is the same process, so its
// started_at must be the start it had under the last daemon, not the moment of adoption. Until the restore has listed
// tmux, a dashboard that reconnects meanwhile is told the agent is `restoring` (never `stopped`), and then told it was
// adopted (issue 29 item 2): here tmux is made slow to answer on purpose.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { killTmuxServer } from '../helpers/daemon.js';
import { freePort } from '../helpers/free-port.js';
import { request, type Target } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';

/** How long the wrapper tmux holds its control client back before tmux itself starts. */
const TMUX_DELAY_S = 3;

/** A `tmux` for PATH that waits before starting a control client (how the daemon lists sessions), then is tmux. */
function slowTmux(dir: string): string {
  const real = (process.env.PATH ?? '')
    .split(':')
    .map((d) => path.join(d, 'tmux'))
    .find((p) => fs.existsSync(p));
  assert.ok(real, 'tmux is on PATH');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'tmux'),
    `#!/bin/sh\ncase " $* " in *" -C "*) sleep ${TMUX_DELAY_S} ;; esac\nexec ${real} "$@"\n`,
    { mode: 0o755 },
  );
  return dir;
}

describe('a daemon restart with a live agent', () => {
  it('reports it restoring while tmux is slow to list, announces the adoption, keeps its started_at', async () => {
    const port = await freePort();
    // The restarted daemon listens where the dashboard already knows to look.
    const t = makeTempHome(
      testConfig('templates:\n  sleeper: { harness: shell, command: "exec sleep 600" }\n').replace(
        'listen: 127.0.0.1:0',
        `listen: 127.0.0.1:${port}`,
      ),
    );
    const tcp: Target = { port };
    const start = () => startDaemon({ env: t.env, clock: systemClock, logger: createLogger('silent') });
    const path0 = process.env.PATH;
    let d: Daemon | null = await start();
    let restarting: Promise<Daemon> | null = null;
    let sse: SseClient | null = null;
    try {
      const spawned = await request(tcp, 'POST', '/api/v1/agents/spawn', {
        token: d.operatorToken,
        body: { template: 'sleeper', name: 'keep' },
      });
      assert.equal(spawned.status, 201, spawned.text);
      const client = await request(tcp, 'POST', '/api/v1/clients', { token: d.operatorToken, body: { name: 'den' } });
      assert.equal(client.status, 201, client.text);
      const dashboard: string = client.json.data.token;
      const agentOf = async () => {
        const r = await request(tcp, 'GET', '/api/v1/state', { token: dashboard });
        assert.equal(r.status, 200, r.text);
        return r.json.data.agents.find((a: { name: string }) => a.name === 'keep');
      };
      const before = await agentOf();
      assert.equal(before.status, 'running');
      await d.close();
      d = null;

      // The new daemon's tmux calls go through the slow wrapper; the dashboard polls as it would after losing it.
      process.env.PATH = `${slowTmux(path.join(t.home, 'slow-bin'))}:${path0}`;
      restarting = start();
      const first = await until(
        'the restarting daemon to answer',
        () =>
          agentOf().catch((err: NodeJS.ErrnoException) =>
            err.code === 'ECONNREFUSED' ? undefined : Promise.reject(err),
          ),
        20_000,
        50,
      );
      assert.equal((await request(tcp, 'GET', '/health')).json.data.ready, false, 'still restoring');
      assert.deepEqual(
        [first.status, first.wake_on_message],
        ['restoring', false],
        'a live agent is restoring from the first answer on, never stopped',
      );
      sse = await SseClient.open(tcp, '/api/v1/events', dashboard);
      await sse.waitFor(1);
      const adopted = (
        await until(
          'the adoption event',
          () =>
            sse!.events.find(
              (e) => e.event === 'agent_state_changed' && e.data.agent === 'keep' && e.data.status !== 'restoring',
            ),
          TMUX_DELAY_S * 1000 + 15_000,
          50,
        )
      ).data;
      d = await restarting;
      restarting = null;
      assert.deepEqual([adopted.status, adopted.wake_on_message, adopted.restarts], ['running', false, 0]);
      const after = await agentOf();
      assert.equal(after.status, 'running');
      assert.equal(after.restarts, 0, 'adopted, not restarted');
      assert.equal(adopted.started_at, after.started_at, 'the event carries the adopted start');
      // tmux keeps a session's creation time in whole seconds, taken just before Leo marked the agent started; the
      // slow restart puts the adoption seconds later.
      const drift = Date.parse(before.started_at) - Date.parse(after.started_at);
      assert.ok(drift >= 0 && drift <= 1000, `started_at ${before.started_at} → ${after.started_at}`);
    } finally {
      process.env.PATH = path0;
      sse?.close();
      if (restarting) d = await restarting.catch(() => null);
      await d?.close();
      killTmuxServer(t.home);
      t.cleanup();
    }
  });
});
