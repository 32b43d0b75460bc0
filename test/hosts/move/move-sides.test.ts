// A move's two sides (issue 32) on real daemons with shell agents, through the side routes a hub calls
// (remoteMoveSide over each daemon's TCP listener): the park holds what is sent (never typed) until resume delivers
// it; a parked agent's pack is copied part by part to a second daemon, spawned there under another name with its git
// workspace as it was, idempotently; mark leaves the dormant record; discard takes away what the move put there.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ThreadCarrier } from '../../../src/chat/threads/transfer/thread-carrier.js';
import { rfc3339 } from '../../../src/core/time.js';
import { fetchHostClient, HostRefusedError, HostUnreachableError } from '../../../src/hosts/host-client.js';
import type { MoveSide } from '../../../src/hosts/move/operation/move-sides.js';
import { remoteMoveSide } from '../../../src/hosts/move/side/remote-move-side.js';
import { Agent } from '../../../src/wire/fleet.js';
import { MessagePage } from '../../../src/wire/message.js';
import type { MoveOperation } from '../../../src/wire/move.js';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { until } from '../../helpers/wait.js';

const CONFIG =
  'templates:\n' +
  '  cat: { harness: shell, command: "exec cat" }\n' +
  '  git: { harness: shell, command: "exec cat", workspace: "~/work/ivy" }\n';

/** The chat's thread carrier as the sides call it: one file per thread, and a log of the calls. */
function fakeThreads(): ThreadCarrier & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async pack(agent, dir) {
      calls.push(`pack ${agent}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'messages.jsonl'), `{"agent":"${agent}"}\n`);
      const { fileDigest } = await import('../../../src/core/file-digest.js');
      const file = { name: 'messages.jsonl', ...(await fileDigest(path.join(dir, 'messages.jsonl'))) };
      return { version: 1, agent, messages: 1, attachments: 0, files: [file] };
    },
    async unpack(dir, manifest, as) {
      assert.ok(fs.existsSync(path.join(dir, 'messages.jsonl')), 'the thread part is there');
      calls.push(`unpack ${manifest.agent} as ${as}`);
    },
    async discard(as) {
      calls.push(`discard ${as}`);
    },
    async closeForMove(agent, address) {
      calls.push(`close ${agent} ${address}`);
    },
  };
}

const op = (id: string, agent: string, as: string, to: string): MoveOperation => ({
  id,
  kind: 'move',
  agent,
  to,
  as,
  force: false,
  step: 'park',
  progress: { bytes_done: 0, bytes_total: null },
  runs: 'source',
  undo: [],
  failure: null,
  attempt: 1,
  created_at: rfc3339(Date.now()),
  updated_at: rfc3339(Date.now()),
});

const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};

describe('a move between two daemons, side by side', () => {
  let box: TestDaemon;
  let cloud: TestDaemon;
  let boxThreads: ReturnType<typeof fakeThreads>;
  let cloudThreads: ReturnType<typeof fakeThreads>;
  let source: MoveSide;
  let target: MoveSide;

  const side = (d: TestDaemon) =>
    remoteMoveSide(fetchHostClient(`http://127.0.0.1:${d.daemon.port}`), d.daemon.operatorToken, 'x');
  /** What the hub does before a spawn: park on `from`, pack, and every part onto `to`. */
  const parkedAndShipped = async (from: MoveSide, to: MoveSide, move: MoveOperation) => {
    await from.park(move);
    const pack = await from.pack(move);
    for (const part of pack.parts) await to.receive(move, part.name, await from.part(move, part.name));
    return pack;
  };
  const messages = async (d: TestDaemon, agent: string) =>
    (await d.get(`/api/v1/chat/${agent}/messages?limit=50`, MessagePage)).messages;

  before(async () => {
    boxThreads = fakeThreads();
    cloudThreads = fakeThreads();
    [box, cloud] = await Promise.all([
      startTestDaemon({ config: CONFIG, threadCarrier: boxThreads }),
      startTestDaemon({ config: CONFIG, threadCarrier: cloudThreads }),
    ]);
    source = side(box);
    target = side(cloud);
    for (const name of ['den']) {
      const r = await box.op('POST', '/api/v1/agents/spawn', { template: 'cat', name });
      assert.equal(r.status, 201, r.text);
    }
  });
  after(async () => {
    await Promise.all([box.stop(), cloud.stop()]);
  });

  it('park holds a message sent meanwhile (pending, not typed); resume starts the agent and delivers it', async () => {
    const move = op('01PARK', 'den', 'den', 'cloud');
    await source.park(move);
    await source.park(move);
    const den = await box.get('/api/v1/agents/den', Agent);
    assert.equal(den.status, 'stopped');
    const sent = await box.op('POST', '/api/v1/chat/den/messages', { text: 'held while parked' });
    assert.equal(sent.status, 201, sent.text);
    const started = await box.op('POST', '/api/v1/agents/den/start');
    assert.equal(started.status, 409, 'a parked agent is not started');
    assert.equal(started.json.code, 'agent_moving');
    await new Promise((r) => setTimeout(r, 700));
    const held = (await messages(box, 'den')).find((m) => m.id === sent.json.data.id);
    assert.equal(held?.state, 'pending');
    assert.ok(!paneText(box.home, 'den').includes('held while parked'), 'nothing typed into a parked pane');

    await source.resume(move);
    await source.resume(move);
    await until(
      'the held message delivered',
      async () => {
        const m = (await messages(box, 'den')).find((x) => x.id === sent.json.data.id);
        return m?.state === 'delivered';
      },
      20_000,
    );
    await until('typed into the pane', () => paneText(box.home, 'den').includes('held while parked'), 10_000);
    assert.equal((await box.get('/api/v1/agents/den', Agent)).status, 'running');
  });

  it('a move undone after its pack takes messages again, and a retry packs what changed meanwhile', async () => {
    const move = op('01UNDONE', 'den', 'den', 'cloud');
    await source.park(move);
    const first = await source.pack(move);
    assert.equal((await box.op('POST', '/api/v1/chat/den/messages', { text: 'refused' })).status, 503);
    await source.resume(move);
    const sent = await box.op('POST', '/api/v1/chat/den/messages', { text: 'taken again after the undo' });
    assert.equal(sent.status, 201, sent.text);
    await until('typed', () => paneText(box.home, 'den').includes('taken again after the undo'), 10_000);
    const ws = (await box.get('/api/v1/agents/den', Agent)).workspace!;
    fs.mkdirSync(ws, { recursive: true });
    fs.writeFileSync(path.join(ws, 'made-after-the-undo.txt'), 'new\n');
    await source.park(move);
    const again = await source.pack(move);
    assert.notDeepEqual(again.parts, first.parts, 'packed anew, not the pack of the undone attempt');
    await source.resume(move);
  });

  it('a daemon restart keeps a parked agent parked, its held message pending, until resume', async () => {
    const move = op('01RESTART', 'den', 'den', 'cloud');
    await source.park(move);
    const sent = await box.op('POST', '/api/v1/chat/den/messages', { text: 'held across a restart' });
    assert.equal(sent.status, 201, sent.text);
    await box.restart();
    source = side(box);
    await new Promise((r) => setTimeout(r, 700));
    assert.equal((await box.get('/api/v1/agents/den', Agent)).status, 'stopped', 'not restored by the restart');
    assert.equal((await messages(box, 'den')).find((m) => m.id === sent.json.data.id)?.state, 'pending');
    assert.equal((await box.op('POST', '/api/v1/agents/den/restart')).json.code, 'agent_moving');
    await source.resume(move);
    await until(
      'the held message delivered after the restart',
      async () => (await messages(box, 'den')).find((m) => m.id === sent.json.data.id)?.state === 'delivered',
      20_000,
    );
  });

  it('a side that cannot be reached rejects with HostUnreachableError; a refusal with HostRefusedError', async () => {
    const gone = remoteMoveSide(fetchHostClient('http://127.0.0.1:9'), 'leo_op_x', 'gone');
    await assert.rejects(gone.park(op('01GONE', 'den', 'den', 'cloud')), HostUnreachableError);
    await assert.rejects(source.park(op('01NOBODY', 'nobody', 'nobody', 'cloud')), (err: HostRefusedError) => {
      assert.ok(err instanceof HostRefusedError);
      return err.hostStatus === 404;
    });
    await assert.rejects(source.part(op('01NOBODY', 'den', 'den', 'cloud'), 'thread/x'), HostRefusedError);
  });

  it('a parked agent packs, ships part by part, spawns on the target as another name with its workspace', async () => {
    const ws = path.join(box.home, 'work', 'ivy');
    fs.mkdirSync(ws, { recursive: true });
    git(ws, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n');
    git(ws, 'add', 'a.txt');
    git(ws, 'commit', '-q', '-m', 'first');
    fs.writeFileSync(path.join(ws, 'a.txt'), 'one\ntwo\n');
    git(ws, 'add', 'a.txt');
    fs.writeFileSync(path.join(ws, 'new.txt'), 'untracked\n');
    const spawned = await box.op('POST', '/api/v1/agents/spawn', { template: 'git', name: 'ivy' });
    assert.equal(spawned.status, 201, spawned.text);

    const move = op('01MOVE', 'ivy', 'ivy2', 'cloud');
    await assert.rejects(source.pack(move), (err: HostRefusedError) => err.hostCode === 'not_parked');
    await source.park(move);
    const before = await box.op('POST', '/api/v1/chat/ivy/messages', { text: 'sent before the pack' });
    assert.equal(before.status, 201, 'held until the pack takes it along');
    const pack = await source.pack(move);
    assert.deepEqual(await source.pack(move), pack, 'packing again answers the same pack');
    const after = await box.op('POST', '/api/v1/chat/ivy/messages', { text: 'sent after the pack' });
    assert.deepEqual([after.status, after.json.code, after.headers['retry-after']], [503, 'agent_moving', '2']);
    assert.ok(pack.parts.some((p) => p.name === 'workspace/refs.bundle'));
    assert.ok(pack.parts.some((p) => p.name === 'thread/messages.jsonl'));
    assert.equal(pack.conversation, null, 'a shell agent has no conversation to carry');

    await assert.rejects(target.spawn(move, pack), (err: HostRefusedError) => err.hostCode === 'parts_missing');
    assert.deepEqual(await target.held(move), []);
    for (const part of pack.parts) await target.receive(move, part.name, await source.part(move, part.name));
    assert.deepEqual((await target.held(move)).sort(), pack.parts.map((p) => p.name).sort());

    await target.spawn(move, pack);
    await target.spawn(move, pack);
    const agents = (await cloud.get('/api/v1/agents', Agent.array())).map((a) => a.name);
    assert.deepEqual(agents, ['ivy2'], 'one agent, however often spawn is asked');
    await until('ivy2 runs', async () => (await cloud.get('/api/v1/agents/ivy2', Agent)).status === 'running', 10_000);
    assert.deepEqual(cloudThreads.calls, ['unpack ivy as ivy2']);

    const there = path.join(cloud.home, 'work', 'ivy');
    assert.equal(git(there, 'status', '--porcelain'), git(ws, 'status', '--porcelain'));
    assert.equal(fs.readFileSync(path.join(there, 'a.txt'), 'utf8'), 'one\ntwo\n');
    assert.equal(fs.readFileSync(path.join(there, 'new.txt'), 'utf8'), 'untracked\n');
    assert.equal(git(there, 'log', '--format=%s'), 'first\n');

    // What reaches ivy2 before the move is marked waits (an undo now would take ivy2 away with what it read).
    const early = await cloud.op('POST', '/api/v1/chat/ivy2/messages', { text: 'sent before the mark' });
    assert.equal(early.status, 201, early.text);
    await new Promise((r) => setTimeout(r, 1_000));
    assert.equal((await messages(cloud, 'ivy2')).find((x) => x.id === early.json.data.id)?.state, 'pending');
    assert.ok(!paneText(cloud.home, 'ivy2').includes('sent before the mark'), 'not typed before the mark');

    await source.mark(move);
    await source.mark(move);
    await target.settle(move);
    await target.settle(move);
    await until(
      'typed into ivy2 once settled',
      async () => paneText(cloud.home, 'ivy2').includes('sent before the mark'),
      10_000,
    );
    assert.equal(paneText(cloud.home, 'ivy2').split('sent before the mark').length, 2, 'typed once');
    const dormant = await box.get('/api/v1/agents/ivy', Agent);
    assert.equal(dormant.status, 'stopped');
    assert.equal(dormant.moved_to, 'cloud');
    assert.equal(dormant.moved_as, 'ivy2');
    assert.ok(boxThreads.calls.includes('close ivy ivy2@cloud'));
    await until(
      'the held message settled as gone along to the new address',
      async () => (await messages(box, 'ivy')).find((x) => x.id === before.json.data.id)?.state === 'delivered',
      10_000,
    );
    assert.ok(!paneText(box.home, 'ivy').includes('sent before the pack'), 'never typed into the old pane');
    const late = await box.op('POST', '/api/v1/chat/ivy/messages', { text: 'sent after the mark' });
    assert.deepEqual([late.status, late.json.code], [409, 'agent_moved'], 'the old address names the new one');

    await target.discard(move);
    await target.discard(move);
    assert.deepEqual(await cloud.get('/api/v1/agents', Agent.array()), []);
    assert.ok(!fs.existsSync(there), 'the workspace it unpacked is gone');
    assert.ok(cloudThreads.calls.includes('discard ivy2'));
  });

  it('a spawn refuses a name a live agent holds, and puts a workspace whose place is filled beside it', async () => {
    const move = op('01TAKEN', 'den', 'den', 'cloud');
    await source.park(move);
    const pack = await source.pack(move);
    for (const part of pack.parts) await target.receive(move, part.name, await source.part(move, part.name));
    assert.equal((await cloud.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    await assert.rejects(target.spawn(move, pack), (err: HostRefusedError) => err.hostCode === 'name_taken');
    const taken = path.join(cloud.home, 'agents', 'den3');
    fs.mkdirSync(taken, { recursive: true });
    fs.writeFileSync(path.join(taken, 'other.txt'), 'not the move’s\n');
    await target.spawn({ ...move, as: 'den3' }, pack);
    assert.equal((await cloud.get('/api/v1/agents/den3', Agent)).workspace, `${taken}-2`);
    await target.discard(move);
    assert.ok(!fs.existsSync(`${taken}-2`), 'the workspace it put beside goes');
    assert.equal((await cloud.get('/api/v1/agents/den', Agent)).status, 'running', 'discard left what it did not make');
    assert.ok(fs.existsSync(path.join(taken, 'other.txt')));
    await source.resume(move);
  });

  it('an agent arriving where a dormant record of its name is takes its place', async () => {
    assert.equal((await box.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'zed' })).status, 201);
    await box.daemon.supervisor.markMoved('zed', { to: 'cloud', as: null, at: rfc3339(Date.now()) });
    // cloud's den (spawned by the test before) comes to box as zed.
    const back = side(cloud);
    const move = op('01BACK', 'den', 'zed', 'box');
    await source.spawn(move, await parkedAndShipped(back, source, move));
    const zed = await box.get('/api/v1/agents/zed', Agent);
    assert.equal(zed.moved_to ?? null, null, 'the dormant record gave way');
    await until('zed runs', async () => (await box.get('/api/v1/agents/zed', Agent)).status === 'running', 10_000);
    await back.mark(move);
    assert.equal((await cloud.get('/api/v1/agents/den', Agent)).moved_to, 'box');
  });

  it('a spawn that took a dormant record’s place, undone, puts the record back', async () => {
    assert.equal((await box.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'yew' })).status, 201);
    const at = rfc3339(Date.now());
    await box.daemon.supervisor.markMoved('yew', { to: 'cloud', as: null, at });
    assert.equal((await cloud.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'yew' })).status, 201);
    const back = side(cloud);
    const move = op('01UNDOBACK', 'yew', 'yew', 'box');
    await source.spawn(move, await parkedAndShipped(back, source, move));
    assert.equal((await box.get('/api/v1/agents/yew', Agent)).moved_to ?? null, null);
    await source.discard(move);
    await source.discard(move);
    const dormant = await box.get('/api/v1/agents/yew', Agent);
    assert.deepEqual([dormant.status, dormant.moved_to, dormant.moved_at], ['stopped', 'cloud', at]);
    const sent = await box.op('POST', '/api/v1/chat/yew/messages', { text: 'to the old address' });
    assert.equal(sent.json.code, 'agent_moved', 'the old address names where it went, as before the move');
    await back.resume(move);
  });

  it('an agent removed while parked takes its hold with it', async () => {
    assert.equal((await box.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'tmp' })).status, 201);
    await source.park(op('01GONEAGENT', 'tmp', 'tmp', 'cloud'));
    assert.equal((await box.op('DELETE', '/api/v1/agents/tmp')).status, 200);
    assert.equal((await box.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'tmp' })).status, 201);
    const restarted = await box.op('POST', '/api/v1/agents/tmp/restart');
    assert.equal(restarted.status, 200, restarted.text);
  });
});
