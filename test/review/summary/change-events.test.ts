// Issue 33, Done-when 4: an agent's change summary follows its workspace from events, within 2 s of a file write, on
// a real daemon (real clock, real git, a shell agent) and on a hub that follows it (renamed, in the hub's state too).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../../src/core/clock.js';
import { StateSnapshot } from '../../../src/wire/fleet.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { pairHost } from '../../helpers/pair-host.js';
import { SseClient, type SseMessage } from '../../helpers/sse-client.js';
import { makeUpstreamRepo } from '../../helpers/upstream-repo.js';
import { until } from '../../helpers/wait.js';

describe('change summary events', () => {
  const up = makeUpstreamRepo();
  let host: TestDaemon;
  let hub: TestDaemon;
  let events: SseClient;
  let hubEvents: SseClient;
  const changesOf = (s: SseClient, agent: string) =>
    s.events.filter((e: SseMessage) => e.event === 'agent_changes' && e.data.agent === agent);
  const stateOf = async (t: TestDaemon, agent: string) =>
    (await t.get('/api/v1/state', StateSnapshot)).agents.find((a) => a.name === agent);

  before(async () => {
    const config = `templates:\n  dev: { harness: shell, command: "exec cat", workspace: ${JSON.stringify(up.repo)} }\n`;
    [host, hub] = await Promise.all([
      startTestDaemon({ config, clock: systemClock }),
      startTestDaemon({ clock: systemClock }),
    ]);
    events = await SseClient.open(host.tcp, '/api/v1/events', host.daemon.operatorToken);
    hubEvents = await SseClient.open(hub.tcp, '/api/v1/events', hub.daemon.operatorToken);
    await Promise.all([events.waitFor(1), hubEvents.waitFor(1)]);
    assert.ok(events.events[0]!.data.features.includes('agent_changes'));
    const spawned = await host.op('POST', '/api/v1/agents/spawn', { template: 'dev', name: 'dev' });
    assert.equal(spawned.status, 201, spawned.text);
    await pairHost(hub, host, 'box');
  });
  after(async () => {
    events?.close();
    hubEvents?.close();
    await Promise.all([hub?.stop(), host?.stop()]);
  });

  it('a clean workspace even with its upstream: all zeros, in the state and on the hub', async () => {
    const clean = { files: 0, insertions: 0, deletions: 0, ahead: 0, behind: 0 };
    await until('the first look', async () => (await stateOf(host, 'dev'))?.changes !== undefined, 5000);
    assert.deepEqual((await stateOf(host, 'dev'))!.changes, clean);
    await until('dev@box on the hub', async () => (await stateOf(hub, 'dev@box'))?.changes !== undefined, 10_000);
    assert.deepEqual((await stateOf(hub, 'dev@box'))!.changes, clean);
  });

  it('a file written shows on /api/v1/events within 2 s with its figures, and on the hub’s stream renamed', async () => {
    const before = changesOf(events, 'dev').length;
    const written = Date.now();
    fs.writeFileSync(path.join(up.repo, 'notes.md'), 'one\ntwo\nthree\n');
    fs.appendFileSync(path.join(up.repo, 'README.md'), 'second line\n');
    await events.waitUntil(() => changesOf(events, 'dev').length > before, 2000);
    const took = Date.now() - written;
    console.log(`# agent_changes ${took} ms after the write`);
    const expected = { files: 2, insertions: 4, deletions: 0, ahead: 0, behind: 0 };
    // Both writes may land in one look or in two: the last event is the whole of it.
    await events.waitUntil(() => changesOf(events, 'dev').at(-1)!.data.changes.files === 2, 2000);
    assert.deepEqual(changesOf(events, 'dev').at(-1)!.data.changes, expected);
    assert.deepEqual((await stateOf(host, 'dev'))!.changes, expected);

    await hubEvents.waitUntil(() => changesOf(hubEvents, 'dev@box').at(-1)?.data.changes.files === 2, 5000);
    assert.equal(changesOf(hubEvents, 'dev@box').at(-1)!.data.host, 'box');
    assert.deepEqual((await stateOf(hub, 'dev@box'))!.changes, expected);
  });

  // The 2 s are the Done-when's for a file written; a commit or a push is git's own work first, so these wait longer.
  it('a commit: the changes go, one commit ahead; a push: even again', async () => {
    up.commitAll('notes');
    await events.waitUntil(() => changesOf(events, 'dev').at(-1)!.data.changes.ahead === 1, 5000);
    assert.deepEqual(changesOf(events, 'dev').at(-1)!.data.changes, {
      files: 0,
      insertions: 0,
      deletions: 0,
      ahead: 1,
      behind: 0,
    });
    up.git('push', '-q');
    await events.waitUntil(() => changesOf(events, 'dev').at(-1)!.data.changes.ahead === 0, 5000);
  });

  it('publishes nothing while nothing changes', async () => {
    const count = changesOf(events, 'dev').length;
    await new Promise((r) => setTimeout(r, 2500));
    assert.equal(changesOf(events, 'dev').length, count);
  });
});
