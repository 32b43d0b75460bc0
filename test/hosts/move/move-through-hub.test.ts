// A move and a copy through a hub with every part real (issue 32): the hub's runner, both daemons' sides over the
// peer token, the workspace packer, the chat's thread carrier. The hub's own shell agent `ivy` (a git workspace with
// a commit, a staged change, an unstaged edit and an untracked file; a thread of earlier messages) moves to box:
// it runs there with the same workspace and thread, the hub keeps a dormant record that forwards; then a copy of it
// comes back to the hub as ivy2 and both go on independently.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { machineName } from '../../../src/hosts/host-identity.js';
import { Agent, StateSnapshot } from '../../../src/wire/fleet.js';
import { MessagePage } from '../../../src/wire/message.js';
import { MoveOperation } from '../../../src/wire/move.js';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { pairHost } from '../../helpers/pair-host.js';
import { SseClient } from '../../helpers/sse-client.js';
import { until } from '../../helpers/wait.js';
import { git, workspaceSnapshot as snapshot } from '../../helpers/workspace-snapshot.js';

const CONFIG =
  'templates:\n  git: { harness: shell, command: "exec cat", workspace: "~/work/ivy", chat: { enabled: true } }\n';

describe('a move and a copy through a hub, every part real', () => {
  let hub: TestDaemon;
  let box: TestDaemon;
  const self = machineName();
  const texts = async (d: TestDaemon, agent: string) =>
    (await d.get(`/api/v1/chat/${agent}/messages?limit=500`, MessagePage)).messages
      .filter((m) => m.kind === 'text')
      .map((m) => m.text);
  const finish = (d: TestDaemon, id: string) =>
    until(
      `move ${id} settled`,
      async () => {
        const op = await d.get(`/api/v1/moves/${id}`, MoveOperation);
        return (op.step === 'done' || (op.step === 'failed' && op.undo.length === 0)) && op;
      },
      60_000,
    );

  before(async () => {
    [hub, box] = await Promise.all([startTestDaemon({ config: CONFIG }), startTestDaemon({ config: CONFIG })]);
    const ws = path.join(hub.home, 'work', 'ivy');
    fs.mkdirSync(ws, { recursive: true });
    git(ws, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(ws, 'README.md'), 'ivy\n');
    fs.writeFileSync(path.join(ws, 'app.js'), 'console.log(1);\n');
    git(ws, 'add', '.');
    git(ws, 'commit', '-q', '-m', 'first');
    fs.writeFileSync(path.join(ws, 'staged.txt'), 'staged\n');
    git(ws, 'add', 'staged.txt');
    fs.appendFileSync(path.join(ws, 'app.js'), 'console.log(2);\n');
    fs.writeFileSync(path.join(ws, 'notes.txt'), 'untracked\n');
    const spawned = await hub.op('POST', '/api/v1/agents/spawn', { template: 'git', name: 'ivy' });
    assert.equal(spawned.status, 201, spawned.text);
    await pairHost(hub, box, 'box');
    for (const text of ['first of the thread', 'second of the thread']) {
      assert.equal((await hub.op('POST', '/api/v1/chat/ivy/messages', { text })).status, 201);
      await until(`"${text}" typed`, () => paneText(hub.home, 'ivy').includes(text), 20_000);
    }
  });
  after(async () => {
    await Promise.all([hub.stop(), box.stop()]);
  });

  it('moves ivy to box: the workspace, the thread and a dormant record that forwards', async () => {
    const before = snapshot(path.join(hub.home, 'work', 'ivy'));
    const events = await SseClient.open(hub.tcp, '/api/v1/events', hub.daemon.operatorToken);
    try {
      const r = await hub.op('POST', '/api/v1/agents/ivy/move', { to: 'box' });
      assert.equal(r.status, 202, r.text);
      const done = await finish(hub, MoveOperation.parse(r.json.data).id);
      assert.equal(done.step, 'done', JSON.stringify(done.failure));
      const seen = events.events.filter((e) => e.event === 'move_progress').map((e) => e.data.move as MoveOperation);
      assert.deepEqual([...new Set(seen.map((m) => m.step))], ['park', 'ship', 'spawn', 'mark', 'done']);
      const shipped = seen.filter((m) => m.step === 'ship' && m.progress.bytes_total !== null).at(-1);
      assert.ok(shipped && shipped.progress.bytes_done === shipped.progress.bytes_total, JSON.stringify(shipped));
    } finally {
      events.close();
    }

    await until(
      'ivy runs on box',
      async () => (await box.get('/api/v1/agents/ivy', Agent)).status === 'running',
      20_000,
    );
    assert.deepEqual(snapshot(path.join(box.home, 'work', 'ivy')), before, 'the workspace arrived as it was');
    assert.deepEqual(await texts(box, 'ivy'), ['first of the thread', 'second of the thread']);

    const dormant = await hub.get('/api/v1/agents/ivy', Agent);
    assert.deepEqual([dormant.status, dormant.moved_to], ['stopped', 'box']);
    const fleet = await until(
      'the hub shows ivy@box running',
      async () => {
        const s = await hub.get('/api/v1/state', StateSnapshot);
        return s.agents.find((a) => a.name === 'ivy@box' && a.status === 'running') && s;
      },
      20_000,
    );
    assert.equal(fleet.agents.find((a) => a.name === 'ivy')?.moved_to, 'box');
    assert.deepEqual(await texts(hub, 'ivy@box'), ['first of the thread', 'second of the thread']);

    const sent = await hub.op('POST', '/api/v1/chat/ivy/messages', { text: 'after the move' });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.json.data.agent, 'ivy@box');
    await until('typed on box', () => paneText(box.home, 'ivy').includes('after the move'), 20_000);
    assert.ok(!paneText(hub.home, 'ivy').includes('after the move'), 'nothing typed into the old pane');
  });

  it('copies ivy@box back to the hub as ivy2: both run, each with the history, each going on alone', async () => {
    const r = await hub.op('POST', '/api/v1/agents/ivy@box/copy', { to: self, as: 'ivy2' });
    assert.equal(r.status, 202, r.text);
    const done = await finish(hub, MoveOperation.parse(r.json.data).id);
    assert.equal(done.step, 'done', JSON.stringify(done.failure));
    await until('ivy2 runs', async () => (await hub.get('/api/v1/agents/ivy2', Agent)).status === 'running', 20_000);
    assert.equal((await box.get('/api/v1/agents/ivy', Agent)).status, 'running', 'the source runs on');
    // ~/work/ivy on the hub is the folder the move left behind: the copy's goes beside it, the old one untouched.
    const copy = (await hub.get('/api/v1/agents/ivy2', Agent)).workspace;
    assert.equal(copy, path.join(hub.home, 'work', 'ivy-ivy2'));
    assert.deepEqual(snapshot(copy), snapshot(path.join(box.home, 'work', 'ivy')));
    const history = ['first of the thread', 'second of the thread', 'after the move'];
    assert.deepEqual(await texts(hub, 'ivy2'), history);

    assert.equal((await hub.op('POST', '/api/v1/chat/ivy2/messages', { text: 'only to the copy' })).status, 201);
    assert.equal((await hub.op('POST', '/api/v1/chat/ivy@box/messages', { text: 'only to box' })).status, 201);
    await until('typed in the copy', () => paneText(hub.home, 'ivy2').includes('only to the copy'), 20_000);
    await until('typed on box', () => paneText(box.home, 'ivy').includes('only to box'), 20_000);
    assert.ok(!paneText(hub.home, 'ivy2').includes('only to box'));
    assert.ok(!paneText(box.home, 'ivy').includes('only to the copy'));
    assert.deepEqual(await texts(hub, 'ivy2'), [...history, 'only to the copy']);
    assert.deepEqual(await texts(box, 'ivy'), [...history, 'only to box']);
  });
});
