import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { until } from '../../helpers/wait.js';
import { MessagePage } from '../../../src/wire/message.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;

describe('sending with a client_id: a repeat stores and delivers once', () => {
  let t: TestDaemon;
  const thread = async () =>
    (await t.get('/api/v1/chat/den/messages?limit=100', MessagePage)).messages as {
      id: string;
      text: string;
      direction: string;
      state: string;
      client_id?: string;
    }[];
  const typed = (text: string) =>
    paneText(t.home, 'den')
      .split('\n')
      .filter((l) => l.includes(text)).length;

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
  });
  after(() => t.stop());

  it('answers a repeat with the stored message: one message in the thread, typed once', async () => {
    const body = { text: 'once only please', client_id: 'outbox-1f9a' };
    const first = await t.op('POST', '/api/v1/chat/den/messages', body);
    assert.equal(first.status, 201, first.text);
    assert.equal(first.json.data.client_id, 'outbox-1f9a');
    const again = await t.op('POST', '/api/v1/chat/den/messages', body);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.data.id, first.json.data.id);
    await until(
      'delivered',
      async () => (await thread()).find((m) => m.id === first.json.data.id)?.state === 'delivered',
      15_000,
    );
    const third = await t.op('POST', '/api/v1/chat/den/messages', body);
    assert.equal(third.json.data.state, 'delivered', 'a later repeat sees how the first one went');
    await sleep(1000);
    assert.equal((await thread()).filter((m) => m.text === 'once only please').length, 1);
    // cat echoes what it reads: the line typed once shows twice (the terminal's echo and cat's copy).
    assert.equal(typed('once only please'), 2);
  });

  it('stores one message when the same send races itself', async () => {
    const body = { text: 'raced send', client_id: 'outbox-race' };
    const answers = await Promise.all([1, 2, 3].map(() => t.op('POST', '/api/v1/chat/den/messages', body)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 200, 201]);
    assert.equal(new Set(answers.map((a) => a.json.data.id)).size, 1);
    assert.equal((await thread()).filter((m) => m.text === 'raced send').length, 1);
  });

  it('refuses a different message under an id already used (409 client_id_reused), storing nothing', async () => {
    await t.op('POST', '/api/v1/chat/den/messages', { text: 'first use', client_id: 'outbox-reuse' });
    const r = await t.op('POST', '/api/v1/chat/den/messages', { text: 'something else', client_id: 'outbox-reuse' });
    assert.equal(r.status, 409, r.text);
    assert.equal(r.json.code, 'client_id_reused');
    assert.equal((await thread()).filter((m) => m.text === 'something else').length, 0);
  });

  it('keeps ids per thread and checks their shape', async () => {
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'other' })).status, 201);
    const r = await t.op('POST', '/api/v1/chat/other/messages', { text: 'first use', client_id: 'outbox-reuse' });
    assert.equal(r.status, 201, 'another thread may use the same id');
    const bad = await t.op('POST', '/api/v1/chat/den/messages', { text: 'x', client_id: 'has space' });
    assert.equal(bad.status, 400);
  });
});
