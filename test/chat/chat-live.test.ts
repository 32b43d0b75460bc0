import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { ReadMarker, MessagePage } from '../../src/wire/message.js';

const CONFIG = `
environments:
  acct: { K: v }
templates:
  cat: { harness: shell, command: "exec cat" }
  needy: { harness: shell, command: "exec cat", environments: [acct] }
`;

describe('Leo Chat threads with a shell agent in real tmux', () => {
  let t: TestDaemon;
  let sse: SseClient;
  const pane = (agent: string) => paneText(t.home, agent);
  const stateOf = async (agent: string, id: string, want: string) => {
    for (let i = 0; i < 60; i++) {
      const page = await t.get(`/api/v1/chat/${agent}/messages?limit=50`, MessagePage);
      const m = page.messages.find((x: { id: string }) => x.id === id);
      if (m?.state === want) return page.messages;
      await sleep(100);
    }
    assert.fail(`message ${id} never became ${want}`);
  };

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    await sse.waitFor(1);
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
  });
  after(async () => {
    sse.close();
    await t.stop();
  });

  it('a sent message arrives in the pane in the spec format and goes pending → delivered', async () => {
    const mark = sse.events.length;
    const r = await t.op('POST', '/api/v1/chat/den/messages', { text: 'hello there' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.data.state, 'pending');
    assert.deepEqual(r.json.data.attachments, []);
    await stateOf('den', r.json.data.id, 'delivered');
    assert.match(pane('den'), /\[Leo Chat\] hello there/);
    await sse.waitUntil(() => sse.events.slice(mark).some((e) => e.event === 'chat.updated'));
    const evs = sse.events.slice(mark).filter((e) => e.event.startsWith('chat.'));
    assert.deepEqual(
      evs.map((e) => [e.event, e.data.message.state, e.data.change ?? null]),
      [
        ['chat.message', 'pending', null],
        ['chat.updated', 'delivered', 'state'],
      ],
    );
  });

  it('a message to a stopped agent starts it first, with a Starting… note', async () => {
    await t.op('POST', '/api/v1/agents/den/stop');
    const r = await t.op('POST', '/api/v1/chat/den/messages', { text: 'are you up?' });
    const messages = await stateOf('den', r.json.data.id, 'delivered');
    assert.ok(messages.some((m: { kind: string; text: string }) => m.kind === 'system' && m.text === 'Starting den…'));
    await sleep(300);
    assert.match(pane('den'), /\[Leo Chat\] are you up\?/);
  });

  it('a failing route marks the message failed with a note that says why', async () => {
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'needy', name: 'nee' })).status, 201);
    await t.op('POST', '/api/v1/agents/nee/stop');
    const text = (await import('node:fs'))
      .readFileSync(t.daemon.paths.configFile, 'utf8')
      .replace('  acct: { K: v }\n', '');
    (await import('node:fs')).writeFileSync(t.daemon.paths.configFile, text);
    await t.daemon.reloadConfig('test');
    const r = await t.op('POST', '/api/v1/chat/nee/messages', { text: 'this cannot arrive' });
    const messages = await stateOf('nee', r.json.data.id, 'failed');
    const note = messages.at(-1)!;
    assert.equal(note.kind, 'system');
    assert.match(note.text, /Couldn't deliver your message: .*"acct"/);
  });

  it('threads list every agent, unread counts, read markers; bad input is refused', async () => {
    const threads = (await t.op('GET', '/api/v1/chat/threads')).json.data;
    assert.deepEqual(threads.map((x: { agent: string }) => x.agent).sort(), ['den', 'nee']);
    const den = threads.find((x: { agent: string }) => x.agent === 'den');
    assert.ok(den.unread >= 1, 'system notes from the agent side count as unread');
    assert.equal(den.pinned, false);
    assert.equal((await t.op('POST', '/api/v1/chat/den/read')).status, 200);
    assert.equal(
      (await t.op('GET', '/api/v1/chat/threads')).json.data.find((x: { agent: string }) => x.agent === 'den').unread,
      0,
    );
    assert.equal((await t.op('POST', '/api/v1/chat/ghost/messages', { text: 'x' })).status, 404);
    const empty = await t.op('POST', '/api/v1/chat/den/messages', { text: '   ' });
    assert.equal(empty.status, 400);
    assert.match(empty.json.error, /body\.text/);
    assert.equal((await t.op('GET', '/api/v1/chat/den/messages?limit=9999')).status, 400);
  });

  it('marking a thread read tells every chat reader (chat.read), so other devices clear their badge', async () => {
    await t.op('POST', '/api/v1/chat/den/messages', { text: 'unread soon' });
    await sse.waitUntil(() =>
      sse.events.some((e) => e.event === 'chat.message' && e.data.message.text === 'unread soon'),
    );
    const mark = sse.events.length;
    const r = await t.op('POST', '/api/v1/chat/den/read');
    assert.equal(r.status, 200, r.text);
    assert.equal(ReadMarker.parse(r.json.data).unread, 0);
    await sse.waitUntil(() => sse.events.slice(mark).some((e) => e.event === 'chat.read'));
    const ev = sse.events.slice(mark).find((e) => e.event === 'chat.read')!;
    assert.deepEqual(ReadMarker.parse(ev.data), r.json.data);
    assert.equal(ev.data.read_up_to, r.json.data.read_up_to);
    assert.equal(sse.events[0]?.event, 'hello');
    assert.ok(sse.events[0]?.data.features.includes('chat.read'), 'hello lists the chat.read feature');
  });

  it('API clients post only with can_post, as client:<name>; agent tokens are refused', async () => {
    const ro = t.daemon.tokens.issue('client', 'watcher').token;
    const rw = t.daemon.tokens.issue('client', 'bot', { canPost: true }).token;
    const send = (token: string) =>
      request(t.tcp, 'POST', '/api/v1/chat/den/messages', { token, body: { text: 'from a bot' } });
    assert.equal((await send(ro)).status, 403);
    assert.equal((await send(t.daemon.agentToken)).status, 403);
    const posted = await send(rw);
    assert.equal(posted.status, 201);
    assert.equal(posted.json.data.sender, 'client:bot');
    assert.equal((await request(t.tcp, 'GET', '/api/v1/chat/threads', { token: rw })).status, 403);
  });
});

describe('chat across a daemon restart', () => {
  it('a leftover never started and recent is delivered after the restart; a started or old one fails, never pasted', async () => {
    const t = await startTestDaemon({ config: CONFIG });
    const home = t.home;
    try {
      await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
        token: t.daemon.operatorToken,
        body: { template: 'cat', name: 'den' },
      });
      await t.daemon.close();
      const { ChatStore } = await import('../../src/chat/threads/chat-store.js');
      const { openDatabase } = await import('../../src/store/database.js');
      const db = openDatabase(path.join(home, 'state', 'chat.db'));
      const at = (ms: number, text: string) =>
        new ChatStore(db, { now: () => ms } as never).insert({
          agent: 'den',
          direction: 'in',
          kind: 'text',
          text,
          state: 'pending',
        });
      const old = at(Date.now() - 11 * 60_000, 'queued eleven minutes ago');
      const typing = at(Date.now() - 60_000, 'being typed at the crash');
      new ChatStore(db, { now: () => Date.now() } as never).markDeliveryStarted(typing.id);
      const fresh = at(Date.now() - 60_000, 'queued a minute ago');
      db.close();
      const again = await startDaemon({
        env: { ...process.env, LEO_HOME: home, LEO_USER_HOME: home },
        logger: createLogger('silent'),
      });
      try {
        const thread = async () =>
          (await request({ socketPath: again.paths.socketFile }, 'GET', '/api/v1/chat/den/messages')).json.data
            .messages as { id: string; kind: string; state: string; text: string }[];
        let messages = await thread();
        for (let i = 0; i < 50 && messages.find((m) => m.id === fresh.id)?.state !== 'delivered'; i++) {
          await sleep(100);
          messages = await thread();
        }
        const stateOf = (id: string) => messages.find((m) => m.id === id)?.state;
        assert.deepEqual([stateOf(old.id), stateOf(typing.id), stateOf(fresh.id)], ['failed', 'failed', 'delivered']);
        const notes = messages.filter((m) => m.kind === 'system').map((m) => m.text);
        // The recent one is typed after the restart, and its note says so (issue 29 item 6).
        assert.match(
          notes.at(-1) ?? '',
          /^Leo restarted before your message “queued a minute ago” reached den \(sent .+\); it was typed in after the restart, at .+\.$/,
        );
        assert.deepEqual(
          notes.slice(0, -1),
          [
            'Leo restarted before your message was delivered, over 10 minutes after you sent it; please send it ' +
              'again if it still applies.',
            'Leo restarted while typing your message into den; it may have arrived, so check before resending.',
          ],
          'no "Starting den…": the live agent was adopted before anything was typed into it',
        );
        await sleep(500);
        const p = spawnSync(
          'tmux',
          ['-S', path.join(home, 'state', 'tmux.sock'), 'capture-pane', '-p', '-t', '=leo-den:'],
          { encoding: 'utf8' },
        ).stdout;
        assert.equal(p.includes('queued eleven minutes ago'), false);
        assert.equal(p.includes('being typed at the crash'), false);
        assert.equal(
          p.split('\n').filter((l) => l === '[Leo Chat] queued a minute ago').length,
          2,
          'typed once (cat echoes it)',
        );
      } finally {
        await again.close();
      }
    } finally {
      spawnSync('tmux', ['-S', path.join(home, 'state', 'tmux.sock'), 'kill-server']);
      (await import('node:fs')).rmSync(home, { recursive: true, force: true });
    }
  });
});
