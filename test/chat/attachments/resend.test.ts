// A resend (issue 16): a new inbound message may send again the attachments of an inbound message in the same thread
// whose delivery failed; they move to it. Everything else about "an attachment belongs to the first message that
// sends it" holds: a delivered message's files, and a failed message's files in another thread, are refused.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';
import { SseClient } from '../../helpers/sse-client.js';
import { MessagePage } from '../../../src/wire/message.js';

const CONFIG = `
environments:
  acct: { K: v }
templates:
  cat: { harness: shell, command: "exec cat" }
  needy: { harness: shell, command: "exec cat", environments: [acct] }
`;

describe('resending a failed message with its attachments', () => {
  let t: TestDaemon;
  let sse: SseClient;
  const upload = async (agent: string, name: string, body: string) => {
    const r = await request(t.tcp, 'POST', `/api/v1/chat/uploads?filename=${name}&agent=${agent}`, {
      token: t.daemon.operatorToken,
      rawBody: body,
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(r.status, 201, r.text);
    return r.json.data.id as string;
  };
  const settled = async (agent: string, id: string) => {
    for (let i = 0; i < 100; i++) {
      const m = (await t.op('GET', `/api/v1/chat/${agent}/messages?limit=50`)).json.data.messages.find(
        (x: { id: string }) => x.id === id,
      );
      if (m && m.state !== 'pending') return m;
      await sleep(100);
    }
    assert.fail(`${id} stayed pending`);
  };
  const setAcct = async (present: boolean) => {
    const text = fs.readFileSync(t.daemon.paths.configFile, 'utf8');
    fs.writeFileSync(
      t.daemon.paths.configFile,
      present
        ? text.replace('environments:\n', 'environments:\n  acct: { K: v }\n')
        : text.replace('  acct: { K: v }\n', ''),
    );
    await t.daemon.reloadConfig('test');
  };

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    await sse.waitFor(1);
    for (const [template, name] of [
      ['needy', 'nee'],
      ['cat', 'den'],
    ])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template, name })).status, 201);
    await t.op('POST', '/api/v1/agents/nee/stop');
  });
  after(async () => {
    sse.close();
    await t.stop();
  });

  it('a failed message carries why; its files go with a resend in the same thread, and only there', async () => {
    await setAcct(false);
    const file = await upload('nee', 'report.txt', 'the report');
    const first = await t.op('POST', '/api/v1/chat/nee/messages', { text: 'read it', attachments: [file] });
    assert.equal(first.status, 201, first.text);
    const failed = await settled('nee', first.json.data.id);
    assert.equal(failed.state, 'failed');
    assert.match(failed.failure, /environment "acct"/, 'the Message says why it failed');

    // Not from another thread, even though the message failed.
    const elsewhere = await t.op('POST', '/api/v1/chat/den/messages', { text: 'read it', attachments: [file] });
    assert.equal(elsewhere.status, 400, elsewhere.text);

    await setAcct(true);
    const mark = sse.events.length;
    const again = await t.op('POST', '/api/v1/chat/nee/messages', { text: 'read it', attachments: [file] });
    assert.equal(again.status, 201, again.text);
    assert.deepEqual(
      again.json.data.attachments.map((a: { id: string }) => a.id),
      [file],
    );
    const delivered = await settled('nee', again.json.data.id);
    assert.equal(delivered.state, 'delivered');
    assert.equal(delivered.failure, undefined);
    for (let i = 0; i < 50 && !paneText(t.home, 'nee', 100).includes('report.txt'); i++) await sleep(100);
    assert.match(paneText(t.home, 'nee', 100), /report\.txt/, 'the file reached the agent');

    // The file moved: the failed message no longer lists it, and every reader was told.
    const before = (await t.get('/api/v1/chat/nee/messages?limit=50', MessagePage)).messages.find(
      (m: { id: string }) => m.id === first.json.data.id,
    )!;
    assert.deepEqual(before.attachments, []);
    await sse.waitUntil(() =>
      sse.events
        .slice(mark)
        .some(
          (e) =>
            e.event === 'chat.updated' && e.data.message.id === first.json.data.id && e.data.change === 'attachments',
        ),
    );

    // Now in a delivered message: a third send is refused, as any sent file is.
    const third = await t.op('POST', '/api/v1/chat/nee/messages', { text: 'once more', attachments: [file] });
    assert.equal(third.status, 400, third.text);
  });
});
