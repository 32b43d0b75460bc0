import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ChatStore } from '../../../src/chat/threads/chat-store.js';
import { formatDelivery } from '../../../src/chat/threads/delivery-format.js';
import { Message } from '../../../src/wire/message.js';
import { ManualClock } from '../../../src/core/clock.js';
import { openDatabase } from '../../../src/store/database.js';

function store() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-chat-'));
  const db = openDatabase(path.join(dir, 'chat.db'));
  const clock = new ManualClock(Date.UTC(2026, 9, 15, 18));
  return {
    s: new ChatStore(db, clock),
    clock,
    done: () => (db.close(), fs.rmSync(dir, { recursive: true, force: true })),
  };
}

describe('ChatStore', () => {
  it('stores the spec Message shape: state always present, attachments [], optional fields only when set', () => {
    const { s, done } = store();
    try {
      const m = s.insert({ agent: 'den', direction: 'out', kind: 'text', text: 'hi', state: '' });
      assert.deepEqual(Object.keys(m).sort(), [
        'agent',
        'attachments',
        'direction',
        'id',
        'kind',
        'state',
        'text',
        'ts',
      ]);
      assert.deepEqual(m.attachments, []);
      assert.equal(Message.safeParse(m).success, true);
      const ask = s.insert({
        agent: 'den',
        direction: 'out',
        kind: 'ask',
        text: 'Ship it?',
        state: 'open',
        input: { type: 'buttons', options: [{ value: 'y', label: 'Yes' }] },
        deadline: '2026-10-15T19:00:00Z',
      });
      const answered = s.update(ask.id, { state: 'answered', answer: { values: ['y'], text: '' } })!;
      assert.deepEqual(answered.answer, { values: ['y'], text: '' });
      assert.equal(answered.deadline, '2026-10-15T19:00:00Z');
      assert.equal('closed_reason' in answered, false);
    } finally {
      done();
    }
  });

  it('pages a thread both ways with cursors, oldest first within a page', () => {
    const { s, clock, done } = store();
    try {
      const ids: string[] = [];
      for (let i = 0; i < 120; i++) {
        ids.push(s.insert({ agent: 'den', direction: 'in', kind: 'text', text: `m${i}`, state: 'delivered' }).id);
        clock.advance(1);
      }
      s.insert({ agent: 'other', direction: 'in', kind: 'text', text: 'elsewhere', state: 'delivered' });
      const newest = s.page('den', { limit: 50 });
      assert.deepEqual(
        newest.messages.map((m) => m.text),
        Array.from({ length: 50 }, (_, i) => `m${70 + i}`),
      );
      assert.equal(newest.newer, null);
      assert.equal(newest.older, ids[70]);
      const older = s.page('den', { before: newest.older!, limit: 50 });
      assert.equal(older.messages[0]!.text, 'm20');
      const oldest = s.page('den', { before: older.older!, limit: 50 });
      assert.equal(oldest.messages.length, 20);
      assert.equal(oldest.older, null);
      const forward = s.page('den', { after: ids[9]!, limit: 5 });
      assert.deepEqual(
        forward.messages.map((m) => m.text),
        ['m10', 'm11', 'm12', 'm13', 'm14'],
      );
      assert.equal(forward.newer, ids[14]);
      assert.equal(s.page('den', { after: ids[115]!, limit: 50 }).newer, null);
    } finally {
      done();
    }
  });

  it('threads: newest message and unread agent messages after the read marker', () => {
    const { s, done } = store();
    try {
      s.insert({ agent: 'den', direction: 'in', kind: 'text', text: 'q', state: 'delivered' });
      const a = s.insert({ agent: 'den', direction: 'out', kind: 'text', text: 'a1', state: '' });
      s.insert({ agent: 'den', direction: 'out', kind: 'text', text: 'a2', state: '' });
      assert.deepEqual(
        s.threads().map((t) => [t.agent, t.last.text, t.unread]),
        [['den', 'a2', 2]],
      );
      s.markRead('den', a.id);
      assert.equal(s.threads()[0]!.unread, 1);
      s.markRead('den', '0'); // an older marker never moves it back
      assert.equal(s.threads()[0]!.unread, 1);
    } finally {
      done();
    }
  });
});

describe('delivery text format', () => {
  it('is the spec format: [Leo Chat], Attachments, In reply to task / ask, card text cut at 1500, ask whole', () => {
    assert.equal(formatDelivery('hello', []), '[Leo Chat] hello');
    assert.equal(formatDelivery('see', ['/a/x.png', '/a/y.pdf']), '[Leo Chat] see\nAttachments: /a/x.png, /a/y.pdf');
    const long = 'é'.repeat(2000);
    const task = formatDelivery('why?', [], { kind: 'task', task: 'daily-news', runId: 'r1', at: 'T', text: long });
    assert.equal(task.split('\n')[1], `In reply to task daily-news run r1 (T): ${'é'.repeat(1500)}…`);
    // The 1500-character cut is the task card's: a late answer quotes its whole question.
    const question = `${'Which of these? '.repeat(150)}the end`;
    const ask = formatDelivery('Yes', [], { kind: 'ask', messageId: 'A1', at: 'T', question, answer: {} });
    assert.equal(ask.split('\n')[1], `In reply to your leo_chat_ask A1 (T): ${question}`);
    assert.equal(
      formatDelivery('Yes', [], {
        kind: 'ask',
        messageId: '01JABC',
        at: '2026-10-15T18:00:00Z',
        question: 'Ship it?',
        answer: { message_id: '01JABC', values: ['y'], labels: ['Yes'], text: '' },
      }),
      '[Leo Chat] Yes\nIn reply to your leo_chat_ask 01JABC (2026-10-15T18:00:00Z): Ship it?\n' +
        'Answer: {"message_id":"01JABC","values":["y"],"labels":["Yes"],"text":""}',
    );
  });

  it('finds what waits (open prompts and asks, pending sends) through the waiting index, never a scan of the thread', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-chat-'));
    const db = openDatabase(path.join(dir, 'chat.db'));
    try {
      const asked: string[] = [];
      const prepare = db.prepare.bind(db);
      db.prepare = ((sql: string) => (asked.push(sql), prepare(sql))) as typeof db.prepare;
      const s = new ChatStore(db, new ManualClock(Date.UTC(2026, 9, 15, 18)));
      s.openPrompts();
      s.openPrompts('den');
      s.openAsks();
      s.openAsks('den');
      s.pendingInbound();
      assert.equal(asked.length, 5);
      for (const sql of asked) {
        const explain = prepare(`EXPLAIN QUERY PLAN ${sql}`);
        const args = sql.includes('@agent') ? [{ agent: 'den' }] : sql.includes('?') ? ['den'] : [];
        const plan = (explain.all(...args) as { detail: string }[]).map((r) => r.detail).join(' | ');
        assert.match(plan, /USING INDEX messages_pending/, `${sql}\n${plan}`);
      }
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
