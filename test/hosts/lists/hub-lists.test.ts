// The hub's lists across machines (issue 31, `agent@host` in the inbox): its inbox and thread list merge every
// followed host's, asked at once with a deadline each. Real daemons on loopback ports (a hub and a host paired through
// a join link) and a host of the test's own that accepts and never answers.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setConfigKey } from '../../../src/config/config-file.js';
import { fetchHostClient } from '../../../src/hosts/host-client.js';
import { HOSTS_MISSING_HEADER, HostInvite } from '../../../src/wire/host.js';
import { Message, Thread } from '../../../src/wire/message.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';
import { pairHost } from '../../helpers/pair-host.js';
import { until } from '../../helpers/wait.js';

const CAT = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('a hub’s inbox and thread list across machines', () => {
  let host: TestDaemon;
  let hub: TestDaemon;
  let hung: http.Server;
  const held: Promise<unknown>[] = [];

  /** An ask from `agent`, held open by its call (answered by nobody here). */
  const ask = (t: TestDaemon, agent: string, question: string) =>
    held.push(
      request(t.tcp, 'POST', `/api/agent/${agent}/chat/ask`, {
        token: t.daemon.agentToken,
        body: { timeout_s: 600, question, options: [{ value: 'y', label: 'yes' }] },
      }).catch(() => undefined),
    );
  const viaHub = (p: string) => request(hub.tcp, 'GET', p, { token: hub.daemon.operatorToken });
  const open = async () => {
    const r = await viaHub('/api/v1/chat/open');
    assert.equal(r.status, 200, r.text);
    return { cards: Message.array().parse(r.json.data), missing: r.headers[HOSTS_MISSING_HEADER] };
  };

  before(async () => {
    host = await startTestDaemon({ config: CAT });
    hub = await startTestDaemon({ config: CAT });
    assert.equal((await host.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    assert.equal((await hub.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'owl' })).status, 201);
    await pairHost(hub, host, 'box');
    ask(hub, 'owl', 'Merge the branch?');
    ask(host, 'den', 'Deploy the box?');
    // A host that takes the connection and never says a word: neither the follower nor a list gets an answer.
    hung = http.createServer(() => undefined);
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(hung.address() as AddressInfo).port}`;
    assert.ok(setConfigKey(path.join(hub.home, 'leo.yaml'), ['client', 'hosts', 'slow'], { url }, hub.home).ok);
    fs.writeFileSync(path.join(hub.home, 'state', 'hosts', 'slow.token'), 'leo_peer_stand-in\n', { mode: 0o600 });
    await hub.daemon.reloadConfig('a host that hangs');
  });
  after(async () => {
    hung.closeAllConnections();
    hung.close();
    await Promise.all([host.stop(), hub.stop()]);
    await Promise.all(held);
  });

  it('the inbox holds the hub’s open cards and the host’s as den@box, newest first; the hung host is named', async () => {
    await until(
      'both asks in the hub’s inbox',
      async () => (await open()).cards.some((m) => m.agent === 'den@box'),
      20_000,
    );
    const { cards, missing } = await open();
    assert.deepEqual(
      cards.map((m) => [m.agent, m.text]),
      [
        ['den@box', 'Deploy the box?'],
        ['owl', 'Merge the branch?'],
      ],
    );
    assert.equal(missing, 'slow', 'the host that did not answer in time');
    const mine = await viaHub('/api/v1/chat/open?agent=owl');
    assert.deepEqual(
      (mine.json.data as Message[]).map((m) => m.agent),
      ['owl'],
      'one agent’s: the hub’s own',
    );
    assert.equal(mine.headers[HOSTS_MISSING_HEADER], undefined);
  });

  it('the thread list names den@box with the host’s unread count; only the hub’s own are pinned', async () => {
    const r = await viaHub('/api/v1/chat/threads');
    assert.equal(r.status, 200, r.text);
    assert.equal(r.headers[HOSTS_MISSING_HEADER], 'slow');
    const threads = Thread.array().parse(r.json.data);
    const den = threads.find((t) => t.agent === 'den@box');
    assert.ok(den, JSON.stringify(threads.map((t) => t.agent)));
    assert.equal(den.last_message?.agent, 'den@box');
    assert.equal(den.last_message?.text, 'Deploy the box?');
    assert.equal(den.unread, 1);
    assert.ok(threads.some((t) => t.agent === 'owl'));
    assert.ok(threads.filter((t) => t.agent.includes('@')).every((t) => !t.pinned));
    const onHost = Thread.array().parse((await host.op('GET', '/api/v1/chat/threads')).json.data);
    assert.deepEqual(
      onHost.map((t) => t.agent).sort(),
      threads
        .filter((t) => t.agent.endsWith('@box'))
        .map((t) => t.agent.replace(/@box$/, ''))
        .sort(),
      'every thread of the host, no more',
    );
  });

  it('a hub that follows this hub as its host gets this hub’s own: hosts are not followed through a hub', async () => {
    const invite = await hub.op('POST', '/api/v1/host/invites', { hub: 'upstream' });
    assert.equal(invite.status, 201, invite.text);
    const code = HostInvite.parse(invite.json.data).link.split('#join=')[1]!;
    const { token } = await fetchHostClient(`http://127.0.0.1:${hub.tcp.port}`).join(code, 'upstream');
    const r = await request(hub.tcp, 'GET', '/api/v1/chat/open', { token });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      (r.json.data as Message[]).map((m) => m.agent),
      ['owl'],
    );
    assert.equal(r.headers[HOSTS_MISSING_HEADER], undefined, 'no host was asked');
  });

  it('a host that went away is named, and its cards stay as the hub last heard them', async () => {
    await host.daemon.close();
    const { cards, missing } = await open();
    assert.equal(missing, 'box,slow');
    assert.deepEqual(
      cards.map((m) => m.agent),
      ['den@box', 'owl'],
    );
  });
});
