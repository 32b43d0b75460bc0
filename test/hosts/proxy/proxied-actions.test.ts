// Actions on another machine's agent through the hub (issue 31, Actions are proxied): two real daemons on loopback
// ports, a hub and a host paired through a join link; every request goes to the hub as `den@box`, and what happened is
// read on the host itself.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { setConfigKey } from '../../../src/config/config-file.js';
import { createLogger } from '../../../src/core/logger.js';
import { ruleFor } from '../../../src/hosts/proxy/proxy-rules.js';
import { Agent } from '../../../src/wire/fleet.js';
import { SENDER_HEADER } from '../../../src/wire/host.js';
import { Message, MessagePage } from '../../../src/wire/message.js';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';
import { SseClient } from '../../helpers/sse-client.js';
import { tempDir } from '../../helpers/temp-home.js';
import { until } from '../../helpers/wait.js';
import { SMALLEST_HPARAMS, writeWeightlessModel } from '../../helpers/whisper-model.js';

describe('actions on a host’s agent through the hub', () => {
  const scratch = tempDir('leo-proxy-');
  const hubLog = path.join(scratch, 'hub.log');
  let host: TestDaemon;
  let hub: TestDaemon;
  let peerToken: string;
  /** Every answer the hub gave: none may carry the peer token. */
  const answers: string[] = [];

  const viaHub = async (method: string, p: string, opts: Parameters<typeof request>[3] = {}) => {
    const r = await request(hub.tcp, method, p, { token: hub.daemon.operatorToken, ...opts });
    answers.push(r.text, JSON.stringify(r.headers));
    return r;
  };
  const hostThread = async () => (await host.get('/api/v1/chat/den/messages?limit=500', MessagePage)).messages;
  const device = async (fleet: boolean) => {
    const r = await hub.op('POST', '/api/v1/devices', { name: fleet ? 'own phone' : 'phone', fleet });
    assert.equal(r.status, 201, r.text);
    return r.json.data.token as string;
  };

  before(async () => {
    // A weightless model: the host runs the whole transcription pipeline and hears no words; the hub has none.
    const model = writeWeightlessModel(path.join(scratch, 'ggml-tiny.en.bin'), SMALLEST_HPARAMS);
    host = await startTestDaemon({
      config: `chat:\n  whisper_model: ${model}\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n`,
    });
    hub = await startTestDaemon({
      config: 'defaults:\n  harness: shell\n',
      logger: createLogger('debug', { write: (line: string) => fs.appendFileSync(hubLog, line) }),
    });
    assert.equal((await host.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    const invite = await host.op('POST', '/api/v1/host/invites', { hub: 'hub-one' });
    assert.equal(invite.status, 201, invite.text);
    const added = await hub.op('POST', '/api/v1/hosts', { name: 'box', link: invite.json.data.link });
    assert.equal(added.status, 201, added.text);
    peerToken = fs.readFileSync(path.join(hub.home, 'state', 'hosts', 'box.token'), 'utf8').trim();
  });
  after(async () => {
    await Promise.all([host.stop(), hub.stop()]);
  });

  it('every route that names an agent of the owner’s API and the chat endpoint is passed on, but presence', () => {
    const agentScoped = hub.daemon.routes.filter(
      (r) => /^\/(api\/v1\/)?(agents|chat)\//.test(r.url) && /:(name|agent)\b/.test(r.url),
    );
    assert.ok(agentScoped.length > 20);
    const missing = agentScoped.filter((r) => !ruleFor(r.method, r.url)).map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(missing, ['PUT /api/v1/chat/:agent/presence']);
  });

  it('a message to den@box lands in the host’s thread and is typed into its pane, named den@box on the hub', async () => {
    const sent = await viaHub('POST', '/api/v1/chat/den@box/messages', {
      body: { text: 'hello across machines', client_id: 'c-hello-1' },
    });
    assert.equal(sent.status, 201, sent.text);
    const message = Message.parse(sent.json.data);
    assert.equal(message.agent, 'den@box');
    const onHost = (await hostThread()).find((m) => m.id === message.id);
    assert.equal(onHost?.agent, 'den', 'the host keeps its own bare name');
    assert.equal(onHost?.text, 'hello across machines');
    await until(
      'the text in den’s pane on the host',
      () => paneText(host.home, 'den').includes('hello across'),
      20_000,
    );
  });

  it('an API client’s post keeps its sender on the host; the owner’s stays the owner’s', async () => {
    const client = await hub.op('POST', '/api/v1/clients', { name: 'tour dash', can_post: true });
    assert.equal(client.status, 201, client.text);
    const posted = await request(hub.tcp, 'POST', '/api/v1/chat/den@box/messages', {
      token: client.json.data.token,
      // A caller's own word for who it is never reaches the host.
      headers: { [SENDER_HEADER]: 'client:someone-else' },
      body: { text: 'from the dashboard', client_id: 'c-dash-1' },
    });
    assert.equal(posted.status, 201, posted.text);
    assert.equal(posted.json.data.sender, 'client:tour dash');
    const paired = await hub.op('POST', '/api/v1/devices', { name: 'pocket' });
    const phone = await request(hub.tcp, 'POST', '/api/v1/chat/den@box/messages', {
      token: paired.json.data.token,
      body: { text: 'from the phone' },
    });
    assert.equal(phone.status, 201, phone.text);
    const thread = await hostThread();
    assert.equal(thread.find((m) => m.text === 'from the dashboard')?.sender, 'client:tour dash');
    assert.equal(thread.find((m) => m.text === 'from the phone')?.sender, undefined, 'the owner’s, as on the hub');
    await until(
      'the client’s post typed with its sender',
      () => paneText(host.home, 'den').includes('[Leo Chat from client:tour dash] from the dashboard'),
      20_000,
    );
    const forged = await request(host.tcp, 'POST', '/api/v1/chat/den/messages', {
      token: peerToken,
      headers: { [SENDER_HEADER]: 'operator' },
      body: { text: 'who am I' },
    });
    assert.equal(forged.status, 400, forged.text);
    assert.equal(forged.json.code, 'bad_sender');
    const owner = await request(host.tcp, 'POST', '/api/v1/chat/den/messages', {
      token: host.daemon.operatorToken,
      headers: { [SENDER_HEADER]: 'client:tour dash' },
      body: { text: 'the owner here' },
    });
    assert.equal(owner.status, 201, owner.text);
    assert.equal(owner.json.data.sender, undefined, 'believed of a peer only');
  });

  it('the same client_id twice is one message: the host’s dedupe holds through the hub', async () => {
    const body = { text: 'only once', client_id: 'c-once-1' };
    const first = await viaHub('POST', '/api/v1/chat/den@box/messages', { body });
    const again = await viaHub('POST', '/api/v1/chat/den%40box/messages', { body });
    assert.equal(first.status, 201, first.text);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.data.id, first.json.data.id);
    assert.equal(again.json.data.agent, 'den@box');
    assert.equal((await hostThread()).filter((m) => m.text === 'only once').length, 1);
  });

  it('the thread read through the hub names den@box in every message', async () => {
    const r = await viaHub('GET', '/api/v1/chat/den@box/messages?limit=2');
    assert.equal(r.status, 200, r.text);
    const page = MessagePage.parse(r.json.data);
    assert.equal(page.messages.length, 2, 'the query string went through');
    assert.ok(page.messages.every((m) => m.agent === 'den@box'));
    const read = await viaHub('POST', '/api/v1/chat/den@box/read', { body: {} });
    assert.equal(read.status, 200, read.text);
    assert.equal(read.json.data.agent, 'den@box');
    assert.equal(read.json.data.unread, 0);
  });

  it('an ask on the host is answered through the hub, and the agent’s held call returns the answer', async () => {
    const held = request(host.tcp, 'POST', '/api/agent/den/chat/ask', {
      token: host.daemon.agentToken,
      body: { timeout_s: 600, question: 'Deploy now?', options: ['yes', 'no'].map((v) => ({ value: v, label: v })) },
    });
    let card: Message | undefined;
    await until(
      'the ask in the hub’s view of den@box’s open cards',
      async () => {
        const open = await viaHub('GET', '/api/v1/chat/open?agent=den@box');
        card = (open.json.data as Message[]).find((m) => m.text.includes('Deploy now?'));
        return card !== undefined;
      },
      10_000,
    );
    assert.equal(card!.agent, 'den@box');
    const answered = await viaHub('POST', `/api/v1/chat/den@box/messages/${card!.id}/answer`, {
      body: { values: ['yes'] },
    });
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.json.data.state, 'answered');
    assert.equal(answered.json.data.agent, 'den@box');
    const returned = await held;
    assert.equal(returned.status, 200, returned.text);
    assert.deepEqual(returned.json.data.values, ['yes']);
    const twice = await viaHub('POST', `/api/v1/chat/den@box/messages/${card!.id}/answer`, {
      body: { values: ['no'] },
    });
    assert.equal(twice.status, 409, 'the host’s refusal, passed on with its status');
    assert.equal(twice.json.ok, false);
  });

  it('an attachment is uploaded to the host and downloaded through the hub, byte for byte', async () => {
    const bytes = Buffer.from('notes from the phone\n'.repeat(1000));
    const up = await viaHub('POST', '/api/v1/chat/uploads?filename=notes.txt&agent=den@box', {
      headers: { 'content-type': 'text/plain' },
      rawBody: bytes,
    });
    assert.equal(up.status, 201, up.text);
    const { id } = up.json.data as { id: string };
    const sent = await viaHub('POST', '/api/v1/chat/den@box/messages', {
      body: { text: 'see the notes', attachments: [id] },
    });
    assert.equal(sent.status, 201, sent.text);
    assert.deepEqual(
      (sent.json.data as Message).attachments.map((a) => a.filename),
      ['notes.txt'],
    );
    const down = await viaHub('GET', `/api/v1/chat/den@box/attachments/${id}`);
    assert.equal(down.status, 200);
    assert.match(String(down.headers['content-type']), /^text\/plain/);
    assert.match(String(down.headers['content-disposition']), /notes\.txt/);
    assert.equal(down.text, bytes.toString('utf8'));
    const onHost = await request(host.tcp, 'GET', `/api/v1/chat/den/attachments/${id}`, {
      token: host.daemon.operatorToken,
    });
    assert.equal(onHost.text, bytes.toString('utf8'), 'kept on the host');
  });

  it('a voice note’s audio goes to the host and is transcribed there; send anyway through the hub', async () => {
    const silent = path.join(scratch, 'silence.wav');
    execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', silent, 'trim', '0', '1']);
    const up = await viaHub('POST', '/api/v1/chat/uploads?filename=quiet.wav&agent=den%40box', {
      headers: { 'content-type': 'audio/wav' },
      rawBody: fs.readFileSync(silent),
    });
    assert.equal(up.status, 201, up.text);
    const sent = await viaHub('POST', '/api/v1/chat/den@box/messages', { body: { attachments: [up.json.data.id] } });
    assert.equal(sent.status, 201, sent.text);
    assert.equal(sent.json.data.kind, 'voice');
    let onHost: Message | undefined;
    await until(
      'the host’s transcription settled',
      async () => {
        onHost = (await hostThread()).find((m) => m.id === sent.json.data.id);
        return onHost?.state === 'failed';
      },
      30_000,
    );
    assert.equal(onHost!.transcript, '', 'heard nothing, on the host');
    const anyway = await viaHub('POST', `/api/v1/chat/den@box/messages/${onHost!.id}/send-anyway`, { body: {} });
    assert.equal(anyway.status, 200, anyway.text);
    assert.equal(anyway.json.data.agent, 'den@box');
  });

  it('the terminal streams through the hub, and its keys and the workspace’s changes reach the host', async () => {
    const streamsOnHost = async () =>
      Number(/^leo_streams_open (\d+)$/m.exec((await host.op('GET', '/metrics')).text)?.[1]);
    const before = await streamsOnHost();
    const stream = await SseClient.open(hub.tcp, '/api/v1/agents/den@box/terminal/stream', hub.daemon.operatorToken);
    try {
      await stream.waitUntil(() => stream.events.some((e) => e.event === 'screen'), 10_000);
      assert.equal(await streamsOnHost(), before + 1);
      const screen = stream.events.find((e) => e.event === 'screen')!.data;
      assert.equal(screen.agent, 'den@box', 'the frames name the agent as the hub does');
      assert.ok((screen.ansi as string).includes('hello across machines'));
    } finally {
      stream.close();
    }
    await until('the host’s stream ended with the caller’s', async () => (await streamsOnHost()) === before, 10_000);
    const keys = await viaHub('POST', '/api/v1/agents/den@box/terminal/keys', { body: { keys: ['Enter'] } });
    assert.equal(keys.status, 200, keys.text);
    assert.deepEqual(keys.json.data, { agent: 'den@box', pressed: 1 });
    const direct = await host.op('GET', '/api/v1/agents/den/changes');
    const changes = await viaHub('GET', '/api/v1/agents/den@box/changes');
    assert.equal(changes.status, direct.status, changes.text);
    if (direct.json.ok) assert.deepEqual(changes.json.data, { ...direct.json.data, agent: 'den@box' });
    else assert.deepEqual(changes.json, direct.json, 'the host’s refusal, as it gave it');
  });

  it('agent controls, terminal, usage, templates and spawn go to the host', async () => {
    const den = await viaHub('GET', '/api/v1/agents/den@box');
    assert.equal(den.status, 200, den.text);
    assert.equal(Agent.parse(den.json.data).name, 'den@box');
    assert.equal(den.json.data.host, 'box');
    const screen = await viaHub('GET', '/api/v1/agents/den@box/terminal');
    assert.equal(screen.status, 200, screen.text);
    assert.equal(screen.json.data.agent, 'den@box');
    assert.ok((screen.json.data.ansi as string).includes('hello across machines'));
    const usage = await viaHub('GET', '/api/v1/agents/den@box/usage?days=3');
    assert.equal(usage.status, 200, usage.text);
    assert.equal(usage.json.data.agent, 'den@box');
    assert.equal(usage.json.data.days.length, 3);

    const templates = await viaHub('GET', '/api/v1/templates?host=box');
    assert.deepEqual(
      (templates.json.data as { name: string }[]).map((t) => t.name),
      ['cat'],
      'the host’s own templates',
    );
    const spawned = await viaHub('POST', '/api/v1/agents/spawn', {
      body: { template: 'cat', name: 'owl', host: 'box' },
    });
    assert.equal(spawned.status, 201, spawned.text);
    assert.equal(spawned.json.data.name, 'owl@box');
    assert.ok((await host.get('/api/v1/agents', Agent.array())).some((a) => a.name === 'owl'));
    const stopped = await viaHub('POST', '/api/v1/agents/owl@box/stop');
    assert.equal(stopped.status, 200, stopped.text);
    assert.equal(stopped.json.data.name, 'owl@box');
    assert.equal((await host.get('/api/v1/agents/owl', Agent)).status, 'stopped');
    const removed = await viaHub('DELETE', '/api/v1/agents/owl@box');
    assert.deepEqual(removed.json.data, { name: 'owl@box', removed: true });
  });

  it('an unknown host or agent is a 404; a bare name stays the hub’s own', async () => {
    const noHost = await viaHub('POST', '/api/v1/chat/den@nowhere/messages', { body: { text: 'lost' } });
    assert.equal(noHost.status, 404, noHost.text);
    assert.match(noHost.json.error, /no host named "nowhere"/);
    const noAgent = await viaHub('GET', '/api/v1/agents/ghost@box');
    assert.equal(noAgent.status, 404, noAgent.text);
    assert.match(noAgent.json.error, /ghost/, 'the host’s own words');
    assert.equal((await viaHub('GET', '/api/v1/agents/den')).status, 404, 'den is not the hub’s');
  });

  it('access is the hub’s first: a device without the fleet scope may read and send, not stop den@box', async () => {
    const phone = await device(false);
    const read = await request(hub.tcp, 'GET', '/api/v1/chat/den@box/messages', { token: phone });
    assert.equal(read.status, 200, read.text);
    const stop = await request(hub.tcp, 'POST', '/api/v1/agents/den@box/stop', { token: phone });
    assert.equal(stop.status, 403, stop.text);
    assert.equal(stop.json.details.scope, 'fleet');
    assert.equal((await host.get('/api/v1/agents/den', Agent)).status === 'stopped', false, 'never reached the host');
    const env = await request(hub.tcp, 'POST', '/api/v1/agents/spawn', {
      token: await device(true),
      body: { template: 'cat', name: 'env', host: 'box', env: { PATH: '/tmp' } },
    });
    assert.equal(env.status, 403, env.text);
    assert.equal(env.json.code, 'env_operator_only');
    assert.ok(!(await host.get('/api/v1/agents', Agent.array())).some((a) => a.name === 'env'));
  });

  it('a host that breaks off its answer is unreachable; one that answers a proxy’s HTML error is passed on; a stream it opens with nothing to say yet opens at once and ends quietly with its caller', async () => {
    const seen: http.IncomingHttpHeaders[] = [];
    let streamEnded = false;
    const faulty = http.createServer((req, res) => {
      seen.push(req.headers);
      if (req.url!.endsWith('/terminal/stream')) {
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' }).flushHeaders();
        req.once('close', () => (streamEnded = true));
        return;
      }
      if (req.url!.includes('html')) {
        res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"ok":true,"data":{"na');
      setTimeout(() => res.destroy(), 50);
    });
    await new Promise<void>((r) => faulty.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(faulty.address() as AddressInfo).port}`;
      assert.ok(setConfigKey(path.join(hub.home, 'leo.yaml'), ['client', 'hosts', 'half'], { url }, hub.home).ok);
      fs.writeFileSync(path.join(hub.home, 'state', 'hosts', 'half.token'), 'leo_peer_stand-in\n', { mode: 0o600 });
      await hub.daemon.reloadConfig('a faulty host');
      const broken = await viaHub('GET', '/api/v1/agents/den@half');
      assert.equal(broken.status, 503, broken.text);
      assert.equal(broken.json.code, 'host_unreachable');
      assert.match(broken.json.error, /the host "half" did not answer: its answer broke off/);
      const html = await viaHub('GET', '/api/v1/agents/html@half/changes');
      assert.equal(html.status, 502);
      assert.equal(html.headers['content-type'], 'text/html');
      assert.equal(html.text, '<h1>Bad Gateway</h1>');
      const stream = await SseClient.open(
        hub.tcp,
        '/api/v1/agents/quiet@half/terminal/stream',
        hub.daemon.operatorToken,
      );
      assert.equal(stream.status, 200, 'opened before its first frame, as the host opened it');
      stream.close();
      await until('the host’s stream ended with the caller’s', () => streamEnded, 10_000);
      await sleep(200);
      const errors = fs
        .readFileSync(hubLog, 'utf8')
        .split('\n')
        .filter((l) => l.includes('"level":50') && l.includes('/terminal/stream'));
      assert.deepEqual(errors, [], 'a caller leaving a stream is no error');
      // The hub's follower calls on it too (its state and events): every request, proxied or not, carries the peer token.
      assert.ok(seen.length >= 2);
      assert.ok(
        seen.every((h) => h.authorization === 'Bearer leo_peer_stand-in'),
        'the peer token, never the caller’s',
      );
    } finally {
      faulty.close();
    }
  });

  it('a stopped host answers 503 host_unreachable naming it; the peer token is in no answer and no log', async () => {
    await host.daemon.close();
    const r = await viaHub('POST', '/api/v1/chat/den@box/messages', { body: { text: 'anyone?', client_id: 'c-x' } });
    assert.equal(r.status, 503, r.text);
    assert.equal(r.json.code, 'host_unreachable');
    assert.match(r.json.error, /"box"/);
    assert.deepEqual(r.json.details, { host: 'box' });
    for (const text of answers) assert.ok(!text.includes(peerToken), 'no answer shows the peer token');
    assert.ok(!fs.readFileSync(hubLog, 'utf8').includes(peerToken), 'the hub’s log does not either');
  });
});
