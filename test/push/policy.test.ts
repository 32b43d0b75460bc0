import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { collapseKey, decidePush, inQuietHours, type Presence } from '../../src/push/policy.js';
import { PushPrefs } from '../../src/wire/push.js';
import { needsInputPush, pushForMessage, type PushRecord } from '../../src/push/push-payload.js';
import { message } from './helpers.js';

const nobody: Presence = { viewing: () => false };
const post = pushForMessage(message(), 'Den') as PushRecord;
const ask = pushForMessage(
  message({ id: 'ask1', kind: 'ask', state: 'open', input: { type: 'buttons', options: [] } }),
  'Den',
) as PushRecord;
const card = pushForMessage(
  message({ id: 'card1', kind: 'ask', state: 'open', input: { type: 'questions', questions: [] } }),
  'Den',
) as PushRecord;
const permission = pushForMessage(
  message({ id: 'perm1', kind: 'permission', state: 'open', permission: { tool: 'Bash', summary: 'x' } }),
  'Den',
) as PushRecord;
const attention = needsInputPush('den', 'Den', 'waiting');

// 2026-01-15 03:30 UTC is 22:30 the evening before in New York (EST, UTC-5).
const lateEvening = Date.UTC(2026, 0, 15, 3, 30);
const noonUtc = Date.UTC(2026, 0, 15, 12, 0);
const quiet = (over: Partial<PushPrefs> = {}): PushPrefs =>
  PushPrefs.parse({ quiet_hours: { start: '22:00', end: '07:00', timezone: 'America/New_York' }, ...over });

describe('decidePush', () => {
  it('a per-agent mode overrides the device’s for that agent only', () => {
    const prefs = PushPrefs.parse({ mode: 'asks_only', agents: { den: 'all', ivy: 'none' } });
    assert.equal(decidePush(post, prefs, nobody, noonUtc).push, true);
    assert.equal(decidePush({ ...post, agent: 'max' } as PushRecord, prefs, nobody, noonUtc).push, false);
    assert.equal(decidePush({ ...ask, agent: 'max' } as PushRecord, prefs, nobody, noonUtc).push, true);
    assert.deepEqual(decidePush({ ...ask, agent: 'ivy' } as PushRecord, prefs, nobody, noonUtc), {
      push: false,
      reason: 'mode',
    });
  });

  it('by default everything pushes: posts at normal urgency, what wants an answer at high', () => {
    assert.deepEqual(decidePush(post, undefined, nobody, noonUtc), {
      push: true,
      collapse_key: 'chat:den',
      urgency: 'normal',
      silent: false,
    });
    for (const r of [ask, card, permission, attention]) {
      const d = decidePush(r, undefined, nobody, noonUtc);
      assert.equal(d.push && d.urgency, 'high');
    }
  });

  it('mode none pushes nothing; asks_only pushes asks, questions cards and needs_input only', () => {
    const none = PushPrefs.parse({ mode: 'none' });
    for (const r of [post, ask, card, permission, attention]) {
      assert.deepEqual(decidePush(r, none, nobody, noonUtc), { push: false, reason: 'mode' });
    }
    const asksOnly = PushPrefs.parse({ mode: 'asks_only' });
    assert.deepEqual(decidePush(post, asksOnly, nobody, noonUtc), { push: false, reason: 'mode' });
    for (const r of [ask, card, permission, attention])
      assert.equal(decidePush(r, asksOnly, nobody, noonUtc).push, true);
  });

  it('nothing pushes while a client has that thread open; other threads still push', () => {
    const viewingDen: Presence = { viewing: (a) => a === 'den' };
    for (const r of [post, ask, card, permission, attention]) {
      assert.deepEqual(decidePush(r, undefined, viewingDen, noonUtc), { push: false, reason: 'viewing' });
    }
    assert.equal(decidePush(post, undefined, { viewing: (a) => a === 'ops' }, noonUtc).push, true);
  });

  it('in quiet hours posts are dropped and what wants an answer goes out silently', () => {
    assert.deepEqual(decidePush(post, quiet(), nobody, lateEvening), { push: false, reason: 'quiet_hours' });
    for (const r of [ask, card, permission, attention]) {
      const d = decidePush(r, quiet(), nobody, lateEvening);
      assert.equal(d.push && d.silent, true);
    }
    const day = decidePush(post, quiet(), nobody, noonUtc);
    assert.equal(day.push && day.silent, false);
  });

  it('collapse keys: an agent’s posts share one; every ask and prompt has its own; attention per agent', () => {
    const another = pushForMessage(message({ id: 'other', kind: 'file', text: 'x' }), 'Den') as PushRecord;
    assert.equal(collapseKey(post), collapseKey(another));
    assert.equal(collapseKey(post), 'chat:den');
    assert.equal(collapseKey(ask), 'message:ask1');
    assert.equal(collapseKey(card), 'message:card1');
    assert.equal(collapseKey(permission), 'message:perm1');
    assert.equal(collapseKey(attention), 'needs_input:den');
  });
});

describe('quiet hours', () => {
  const at = (h: number, m = 0) => Date.UTC(2026, 5, 1, h, m);

  it('windows across midnight and within a day, [start, end), in the given zone', () => {
    const night = { start: '22:00', end: '07:00', timezone: 'UTC' };
    assert.equal(inQuietHours(night, at(23)), true);
    assert.equal(inQuietHours(night, at(3)), true);
    assert.equal(inQuietHours(night, at(7)), false);
    assert.equal(inQuietHours(night, at(21, 59)), false);
    assert.equal(inQuietHours(night, at(22)), true);
    const lunch = { start: '12:00', end: '13:30', timezone: 'UTC' };
    assert.equal(inQuietHours(lunch, at(13, 29)), true);
    assert.equal(inQuietHours(lunch, at(13, 30)), false);
    // 12:00 UTC is 14:00 in Berlin (CEST) on 1 June.
    assert.equal(inQuietHours({ ...lunch, timezone: 'Europe/Berlin' }, at(12)), false);
    assert.equal(inQuietHours({ ...lunch, timezone: 'Europe/Berlin' }, at(10, 15)), true);
  });

  it('start equal to end is no window', () => {
    assert.equal(inQuietHours({ start: '08:00', end: '08:00', timezone: 'UTC' }, at(8)), false);
  });

  it('prefs default to mode all and refuse bad times and zones', () => {
    assert.deepEqual(PushPrefs.parse({}), { mode: 'all' });
    assert.equal(PushPrefs.safeParse({ quiet_hours: { start: '24:00', end: '07:00' } }).success, false);
    assert.equal(PushPrefs.safeParse({ quiet_hours: { start: '7:00', end: '08:00' } }).success, false);
    assert.equal(
      PushPrefs.safeParse({ quiet_hours: { start: '22:00', end: '07:00', timezone: 'Mars/Base' } }).success,
      false,
    );
    assert.equal(PushPrefs.safeParse({ mode: 'some' }).success, false);
  });
});
