// Issue 20 item 5: 6 000 messages of 100 KB to an agent took the daemon from 143 MB to ~850 MB and chat.db to 574 MB,
// and uploads had no bound at all. Each agent's undelivered messages are capped (429 queue_full with Retry-After, on
// every route that queues text for it), nothing accepted is lost, and uploads have a quota per thread.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { MessagePage } from '../../src/wire/message.js';

const MAX_PENDING = 10;
const QUOTA = 6000;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-pending-'));
const out = path.join(dir, 'den.out');

describe('a flood of messages to a stopped agent, and uploads past the quota', () => {
  let t: TestDaemon;
  let poster: string;
  const upload = (bytes: number, agent?: string) =>
    request(t.tcp, 'POST', `/api/v1/chat/uploads?filename=f.bin${agent ? `&agent=${agent}` : ''}`, {
      token: poster,
      headers: { 'content-type': 'application/octet-stream' },
      rawBody: Buffer.alloc(bytes, 1),
    });
  const metric = async (line: RegExp) => {
    const m = line.exec((await request(t.socket, 'GET', '/metrics')).text);
    assert.ok(m, `${line} is not in /metrics`);
    return Number(m[1]);
  };

  before(async () => {
    t = await startTestDaemon({
      config:
        `chat:\n  max_pending_messages: ${MAX_PENDING}\n  attachment_max_bytes: 4096\n  attachment_quota_bytes: ${QUOTA}\n` +
        `templates:\n  sink: { harness: shell, command: "exec cat > ${out}" }\n`,
    });
    poster = t.daemon.tokens.issue('client', 'poster', { canPost: true }).token;
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'sink', name: 'den' })).status, 201);
    assert.equal((await t.op('POST', '/api/v1/agents/den/stop')).status, 200);
  });
  after(async () => {
    await t.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it(`the ${MAX_PENDING + 1}th undelivered message is refused with 429; every accepted one is delivered later`, async () => {
    const statuses: number[] = [];
    const accepted: string[] = [];
    let refused: Awaited<ReturnType<typeof request>> | undefined;
    for (let i = 0; i < MAX_PENDING + 3; i++) {
      const text = `M${i}Z ${'x'.repeat(2000)}`;
      // The owner's chat messages: a client's would be refused outright while den is stopped (issue 28).
      const r = await t.op('POST', '/api/v1/chat/den/messages', { text });
      statuses.push(r.status);
      if (r.status === 201) accepted.push(`M${i}Z`);
      else refused ??= r;
    }
    assert.deepEqual(statuses, [...Array(MAX_PENDING).fill(201), 429, 429, 429]);
    assert.equal(refused!.json.code, 'queue_full');
    assert.ok(Number(refused!.headers['retry-after']) > 0, 'Retry-After says when to try again');

    // The operator's and the agents' messages to it wait in the same queue.
    const fromOperator = await t.op('POST', '/api/v1/agents/den/message', { text: 'and one from me' });
    assert.equal(fromOperator.status, 429, fromOperator.text);
    assert.equal(fromOperator.json.code, 'queue_full');
    const fromAgent = await request(t.tcp, 'POST', '/api/agent/ann/message', {
      token: t.daemon.agentToken,
      body: { to: 'den', text: 'and one from ann' },
    });
    assert.equal(fromAgent.status, 429, fromAgent.text);
    assert.equal(fromAgent.json.code, 'queue_full');
    assert.equal(await metric(/^leo_chat_pending_messages\{agent="den"\} (\d+)$/m), MAX_PENDING);
    assert.equal(await metric(/^leo_chat_pending_messages_max (\d+)$/m), MAX_PENDING);

    // Nothing accepted is lost: the agent is started and takes every one; nothing refused was stored.
    await until(
      'every accepted message delivered',
      async () => {
        const page = await t.get('/api/v1/chat/den/messages?limit=100', MessagePage);
        const inbound = page.messages.filter((m: { direction: string }) => m.direction === 'in');
        return inbound.length === MAX_PENDING && inbound.every((m: { state: string }) => m.state === 'delivered');
      },
      60_000,
    );
    await until(
      'the agent to have read them all',
      async () => (fs.readFileSync(out, 'utf8').match(/M\d+Z/g) ?? []).length === MAX_PENDING,
      10_000,
    );
    // Each once (their order is not this test's concern: deliveries racing a stopped agent's start can reorder them).
    assert.deepEqual(fs.readFileSync(out, 'utf8').match(/M\d+Z/g)!.sort(), accepted.sort());
    assert.equal((await t.op('POST', '/api/v1/chat/den/messages', { text: 'room again' })).status, 201);
    await until('the next one to arrive', () => fs.readFileSync(out, 'utf8').includes('room again'), 10_000);
  });

  it('uploads past the thread quota are refused with 413 upload_quota, sent or not', async () => {
    assert.equal((await upload(4000, 'den')).status, 201);
    const over = await upload(4000, 'den');
    assert.equal(over.status, 413, over.text);
    assert.equal(over.json.code, 'upload_quota');
    assert.equal((await upload(1500, 'den')).status, 201, 'what still fits is taken');
    assert.equal((await upload(600, 'den')).json.code, 'upload_quota');
    assert.equal(await metric(/^leo_chat_upload_bytes\{thread="den"\} (\d+)$/m), 5500);
    assert.equal(await metric(/^leo_chat_upload_quota_bytes (\d+)$/m), QUOTA);

    // An upload made without an agent joins the thread's quota when a message sends it.
    const loose = await upload(4000);
    assert.equal(loose.status, 201);
    const sent = await request(t.tcp, 'POST', '/api/v1/chat/den/messages', {
      token: poster,
      body: { text: 'see file', attachments: [loose.json.data.id] },
    });
    assert.equal(sent.status, 413, sent.text);
    assert.equal(sent.json.code, 'upload_quota');
  });
});
