// A send to a moved agent's old address (issue 32), with real daemons: a hub following two hosts, where box's den and
// the hub's own agent are marked moved to cloud. Through the hub, messages reach the agent where it runs now; sent
// to box itself, they are refused naming the new address. Nothing is typed into an old pane, nothing is dropped.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rfc3339 } from '../../../src/core/time.js';
import { StateSnapshot } from '../../../src/wire/fleet.js';
import { Message, MessagePage } from '../../../src/wire/message.js';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { pairHost } from '../../helpers/pair-host.js';
import { request } from '../../helpers/http.js';
import { until } from '../../helpers/wait.js';
import { openSqlite } from '../../../src/store/sqlite.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('forwarding to a moved agent', () => {
  let hub: TestDaemon;
  let box: TestDaemon;
  let cloud: TestDaemon;
  const spawn = async (d: TestDaemon, name: string) =>
    assert.equal((await d.op('POST', '/api/v1/agents/spawn', { template: 'cat', name })).status, 201);
  const thread = async (d: TestDaemon, agent: string) =>
    (await d.get(`/api/v1/chat/${agent}/messages?limit=500`, MessagePage)).messages.map((m) => m.text);

  before(async () => {
    const start = () => startTestDaemon({ config: CONFIG });
    [hub, box, cloud] = await Promise.all([start(), start(), start()]);
    await Promise.all([
      spawn(box, 'den'),
      spawn(cloud, 'den2'),
      spawn(cloud, 'own'),
      spawn(hub, 'own'),
      spawn(box, 'fen'),
      spawn(cloud, 'fen'),
    ]);
    await pairHost(hub, box, 'box');
    await pairHost(hub, cloud, 'cloud');
    const at = rfc3339(Date.now());
    // What a move's last step does on its source: the agents now run on cloud (den as den2).
    await box.daemon.supervisor.markMoved('den', { to: 'cloud', as: 'den2', at });
    await hub.daemon.supervisor.markMoved('own', { to: 'cloud', as: null, at });
  });
  after(async () => {
    await Promise.all([hub.stop(), box.stop(), cloud.stop()]);
  });

  it('the hub shows den@box’s dormant record: stopped, moved to cloud as den2', async () => {
    const den = await until(
      'den@box marked moved on the hub',
      async () =>
        (await hub.get('/api/v1/state', StateSnapshot)).agents.find((a) => a.name === 'den@box' && a.moved_to),
      20_000,
    );
    assert.deepEqual([den.status, den.moved_to, den.moved_as], ['stopped', 'cloud', 'den2']);
  });

  it('a message and an agent message to den@box reach den2 on cloud, named there; box’s thread gets nothing', async () => {
    const sent = await hub.op('POST', '/api/v1/chat/den@box/messages', { text: 'after the move', client_id: 'c-1' });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(Message.parse(sent.json.data).agent, 'den2@cloud');
    const told = await hub.op('POST', '/api/v1/agents/den@box/message', { text: 'operator note' });
    assert.equal(told.status, 200, told.text);
    assert.equal(told.json.data.to, 'den2@cloud');
    // Two lanes (the thread's and the message route's): typed in either order.
    await until(
      'both typed on cloud',
      () => ['after the move', 'operator note'].every((t) => paneText(cloud.home, 'den2').includes(t)),
      20_000,
    );
    assert.ok((await thread(cloud, 'den2')).includes('after the move'));
    assert.ok(!(await thread(box, 'den')).includes('after the move'), 'the old thread stays as it was');
  });

  it('the hub’s own moved agent forwards to its host', async () => {
    const sent = await hub.op('POST', '/api/v1/chat/own/messages', { text: 'to own, wherever' });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(Message.parse(sent.json.data).agent, 'own@cloud');
    await until('typed on cloud', () => paneText(cloud.home, 'own').includes('to own, wherever'), 20_000);
  });

  it('a send the hub passes on before it knows of the mark goes on to where the host says the agent went', async () => {
    await until(
      'fen@box followed',
      async () => (await hub.get('/api/v1/state', StateSnapshot)).agents.some((a) => a.name === 'fen@box'),
      20_000,
    );
    // The mark as box stores it, with nothing published yet: the hub still takes fen@box for a live agent.
    const db = openSqlite(path.join(box.home, 'state', 'chat.db'));
    db.prepare("UPDATE agents SET moved_to = 'cloud', moved_at = ? WHERE name = 'fen'").run(rfc3339(Date.now()));
    db.close();
    const sent = await hub.op('POST', '/api/v1/chat/fen@box/messages', {
      text: 'just after the mark',
      client_id: 'f-1',
    });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(Message.parse(sent.json.data).agent, 'fen@cloud');
    await until('typed on cloud', () => paneText(cloud.home, 'fen').includes('just after the mark'), 20_000);
    assert.ok(!paneText(box.home, 'fen').includes('just after the mark'), 'not typed into the old pane');
  });

  it('sent to box itself, a message is refused naming where den went, and den is not started there', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/chat/den/messages'],
      ['POST', '/api/v1/agents/den/message'],
    ] as const) {
      const r = await request(box.tcp, method, path, { token: box.daemon.operatorToken, body: { text: 'old way' } });
      assert.equal(r.status, 409, r.text);
      assert.equal(r.json.code, 'agent_moved');
      assert.equal(r.json.details.address, 'den2@cloud');
    }
    assert.equal((await box.op('POST', '/api/v1/agents/den/start')).json.code, 'agent_moved');
    assert.ok(!(await thread(box, 'den')).includes('old way'), 'nothing stored to fail later');
  });
});
