import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { StateSnapshot } from '../../src/wire/fleet.js';

const CONFIG = `
templates:
  ticker: { harness: shell, command: "while true; do echo tick; sleep 0.4; done" }
`;

describe('a Stop hook makes the agent idle at once (real tmux, daemon clock held still)', () => {
  let t: TestDaemon;
  let sse: SseClient;
  const activity = async () =>
    ((await t.get('/api/v1/state', StateSnapshot)).agents as { name: string; activity: string }[]).find(
      (a) => a.name === 'tk',
    )?.activity;
  /** Sweep-sized clock steps with real time between them, so tmux's activity (whole seconds) can move. */
  const sweepUntil = async (want: string) => {
    for (let i = 0; i < 30; i++) {
      (t.clock as ManualClock).advance(2000);
      await sleep(700);
      if ((await activity()) === want) return i + 1;
    }
    throw new Error(`never ${want}`);
  };

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
  });
  after(async () => {
    sse.close();
    await t.stop();
  });

  it('working → Stop → idle in /state and agent_activity without the quiet window; printing again → working', async () => {
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'ticker', name: 'tk' })).status, 201);
    await sweepUntil('working');
    const mark = sse.events.length;
    const r = await request(t.socket, 'POST', '/hooks/stop', {
      body: { agent: 'tk', payload: { hook_event_name: 'Stop' } },
    });
    assert.equal(r.status, 200);
    assert.equal(await activity(), 'idle', 'idle right after the Stop, the clock not moved');
    // The event may wait out the 1 s publish limit; that is far inside the 15 s quiet window.
    (t.clock as ManualClock).advance(1000);
    for (let i = 0; i < 50 && !sse.events.slice(mark).some((e) => e.event === 'agent_activity'); i++) await sleep(50);
    const idle = sse.events.slice(mark).find((e) => e.event === 'agent_activity');
    assert.deepEqual([idle?.data.agent, idle?.data.activity], ['tk', 'idle']);
    await sweepUntil('working');
  });
});
