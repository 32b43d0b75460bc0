import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sanitizeFilename } from '../../../src/chat/attachments/attachments.js';
import { paneText, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';
import { Message, MessagePage } from '../../../src/wire/message.js';

const CONFIG = `
chat:
  attachment_max_bytes: 1000
templates:
  cat: { harness: shell, command: "exec cat" }
`;

describe('attachment names', () => {
  it('keep the last segment only, drop control characters and leading dots', () => {
    assert.equal(sanitizeFilename('../../etc/passwd'), 'passwd');
    assert.equal(sanitizeFilename('..\\..\\win.ini'), 'win.ini');
    assert.equal(sanitizeFilename('.hidden'), 'hidden');
    assert.equal(sanitizeFilename('a\u0000b\nc.png'), 'abc.png');
    assert.equal(sanitizeFilename('..'), 'file');
    assert.equal(sanitizeFilename('photo <1>.jpg'), 'photo _1_.jpg');
    assert.ok(Buffer.byteLength(sanitizeFilename('é'.repeat(300))) <= 200);
  });
});

describe('uploads and downloads', () => {
  let t: TestDaemon;
  const root = () => path.join(t.home, 'state', 'chat', 'attachments');
  const files = () =>
    fs.existsSync(root())
      ? (fs.readdirSync(root(), { recursive: true }) as string[]).filter((f) =>
          fs.statSync(path.join(root(), f)).isFile(),
        )
      : [];
  const upload = (query: string, body: string | Buffer, token = t.daemon.operatorToken) =>
    request(t.tcp, 'POST', `/api/v1/chat/uploads?${query}`, {
      token,
      rawBody: body,
      headers: { 'content-type': 'application/octet-stream' },
    });

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
  });
  after(() => t.stop());

  it('an upload without an agent belongs to the first message that sends it, and is delivered as an absolute path', async () => {
    const up = await upload('filename=notes.txt', 'hello file');
    assert.equal(up.status, 201, up.text);
    assert.deepEqual(
      [up.json.data.filename, up.json.data.bytes, up.json.data.mime, up.json.data.available],
      ['notes.txt', 10, 'application/octet-stream', true],
    );
    const sent = await t.op('POST', '/api/v1/chat/den/messages', { text: 'read this', attachments: [up.json.data.id] });
    assert.equal(sent.status, 201, sent.text);
    assert.deepEqual(
      sent.json.data.attachments.map((a: { id: string }) => a.id),
      [up.json.data.id],
    );
    const expected = path.join(root(), 'den', up.json.data.id, 'notes.txt');
    assert.equal(fs.readFileSync(expected, 'utf8'), 'hello file');
    let pane = '';
    for (let i = 0; i < 40 && !pane.includes('Attachments:'); i++) {
      await sleep(100);
      pane = spawnSync(
        'tmux',
        ['-S', path.join(t.home, 'state', 'tmux.sock'), 'capture-pane', '-p', '-J', '-t', '=leo-den:'],
        { encoding: 'utf8' },
      ).stdout;
    }
    assert.ok(pane.replace(/\s/g, '').includes(`Attachments:${expected}`), pane);
    const again = await t.op('POST', '/api/v1/chat/den/messages', { text: 'twice', attachments: [up.json.data.id] });
    assert.equal(again.status, 400, 'an attachment is sent once');

    const down = await t.op('GET', `/api/v1/chat/den/attachments/${up.json.data.id}`);
    assert.equal(down.status, 200);
    assert.equal(down.text, 'hello file');
    assert.match(String(down.headers['content-disposition']), /notes\.txt/);
    assert.equal((await t.op('GET', `/api/v1/chat/den/attachments/01NOPE`)).status, 404);
  });

  it('a message lists its files in the order its sender gave them, whatever order they uploaded in', async () => {
    // Files picked together upload side by side and finish in any order: here the second one is in first.
    const second = await upload('filename=second.txt&agent=den', 'two');
    const first = await upload('filename=first.txt&agent=den', 'one');
    assert.deepEqual([first.status, second.status], [201, 201]);
    const ids = [first.json.data.id, second.json.data.id];
    const sent = await t.op('POST', '/api/v1/chat/den/messages', { text: 'in order', attachments: ids });
    assert.equal(sent.status, 201, sent.text);
    const names = (m: Message) => m.attachments.map((a) => a.filename);
    assert.deepEqual(names(Message.parse(sent.json.data)), ['first.txt', 'second.txt']);
    const page = await t.get('/api/v1/chat/den/messages?limit=200', MessagePage);
    assert.deepEqual(names(page.messages.find((m) => m.text === 'in order')!), ['first.txt', 'second.txt']);
    const paths = ids.map((id, i) => path.join(root(), 'den', id, ['first.txt', 'second.txt'][i]!));
    let pane = '';
    for (let i = 0; i < 40 && !pane.includes(paths[1]!); i++) {
      await sleep(100);
      pane = paneText(t.home, 'den', 200).replace(/\s/g, '');
    }
    assert.ok(pane.includes(`Attachments:${paths.join(',')}`), pane);
  });

  it('bad uploads are refused with a clear error and leave no file', async () => {
    const before = files().length;
    const big = await upload('filename=big.bin&agent=den', Buffer.alloc(5000));
    assert.equal(big.status, 413);
    assert.match(big.json.error, /larger than 1000 bytes/);
    const ghost = await upload('filename=x.txt&agent=ghost', 'x');
    assert.equal(ghost.status, 404);
    const noName = await upload('agent=den', 'x');
    assert.equal(noName.status, 400);
    assert.match(noName.json.error, /query\.filename/);
    const json = await t.op('POST', '/api/v1/chat/uploads?filename=a.json&agent=den', { a: 1 });
    assert.equal(json.status, 201, 'a JSON file is just a file');
    fs.rmSync(path.join(root(), 'den', json.json.data.id), { recursive: true });
    assert.equal(files().length, before, 'nothing was left on disk');
    for (const name of ['../../../../tmp/evil.txt', '..', 'a/b.txt', '..\\win.ini']) {
      const traversal = await upload(`filename=${encodeURIComponent(name)}&agent=den`, 'x');
      assert.equal(traversal.status, 400, name);
      assert.match(traversal.json.error, /plain file name/);
    }
    assert.equal(files().length, before, 'still nothing on disk');
    assert.equal(fs.existsSync('/tmp/evil.txt'), false);
    const ro = t.daemon.tokens.issue('client', 'viewer').token;
    assert.equal((await upload('filename=x.txt', 'x', ro)).status, 403);
  });
});

describe('attachment pruning', () => {
  it('removes files past the retention on the pool, keeps the rows as unavailable', async () => {
    const { ManualClock } = await import('../../../src/core/clock.js');
    const clock = new ManualClock(Date.now());
    const t = await startTestDaemon({
      config: CONFIG.replace(
        'attachment_max_bytes: 1000\n',
        'attachment_max_bytes: 1000\n  attachment_retention: 90d\n',
      ),
      clock,
    });
    try {
      await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
      const up = await request(t.tcp, 'POST', '/api/v1/chat/uploads?filename=old.txt&agent=den', {
        token: t.daemon.operatorToken,
        rawBody: 'old',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(up.status, 201, up.text);
      const file = path.join(t.home, 'state', 'chat', 'attachments', 'den', up.json.data.id, 'old.txt');
      assert.ok(fs.existsSync(file));
      const sent = await t.op('POST', '/api/v1/chat/den/messages', {
        text: 'keep this',
        attachments: [up.json.data.id],
      });
      assert.equal(sent.status, 201, sent.text);
      clock.advance(89 * 24 * 3600_000);
      await t.daemon.pruneAttachments();
      assert.ok(fs.existsSync(file), 'not yet 90 days old');
      clock.advance(2 * 24 * 3600_000);
      await t.daemon.pruneAttachments();
      assert.equal(fs.existsSync(file), false);
      assert.equal(fs.existsSync(path.dirname(file)), false);
      const down = await t.op('GET', `/api/v1/chat/den/attachments/${up.json.data.id}`);
      assert.equal(down.status, 410);
      const row = t.daemon.db.prepare('SELECT available FROM attachments WHERE id = ?').get(up.json.data.id) as {
        available: number;
      };
      assert.equal(row.available, 0);
    } finally {
      await t.stop();
    }
  });

  it('removes an upload no message claimed after a day, and a message can no longer claim it', async () => {
    const { ManualClock } = await import('../../../src/core/clock.js');
    // Ids are monotonic in the process: a clock past the one the test before left them at (91 days on).
    const clock = new ManualClock(Date.now() + 365 * 24 * 3600_000);
    const t = await startTestDaemon({ config: CONFIG, clock });
    try {
      const op = t.daemon.operatorToken;
      await request(t.tcp, 'POST', '/api/v1/agents/spawn', { token: op, body: { template: 'cat', name: 'den' } });
      const upload = async (query: string) => {
        const r = await request(t.tcp, 'POST', `/api/v1/chat/uploads?${query}`, {
          token: op,
          rawBody: 'draft',
          headers: { 'content-type': 'text/plain' },
        });
        assert.equal(r.status, 201, r.text);
        return r.json.data.id as string;
      };
      const forDen = await upload('filename=staged.txt&agent=den');
      const loose = await upload('filename=loose.txt');
      const files = () =>
        [forDen, loose].map((id) =>
          fs.existsSync(path.join(t.home, 'state', 'chat', 'attachments', id === forDen ? 'den' : '_unclaimed', id)),
        );
      clock.advance(23 * 3600_000);
      await t.daemon.pruneAttachments();
      assert.deepEqual(files(), [true, true], 'kept for a day');
      const kept = await upload('filename=fresh.txt&agent=den');
      clock.advance(2 * 3600_000);
      await t.daemon.pruneAttachments();
      assert.deepEqual(files(), [false, false]);
      const down = await request(t.tcp, 'GET', `/api/v1/chat/den/attachments/${forDen}`, { token: op });
      assert.equal(down.status, 410);
      const late = await request(t.tcp, 'POST', '/api/v1/chat/den/messages', {
        token: op,
        body: { text: 'now', attachments: [forDen] },
      });
      assert.equal(late.status, 400, late.text);
      const fresh = await request(t.tcp, 'POST', '/api/v1/chat/den/messages', {
        token: op,
        body: { text: 'in time', attachments: [kept] },
      });
      assert.equal(fresh.status, 201, 'an upload of an hour ago is still there to send');
    } finally {
      await t.stop();
    }
  });
});
