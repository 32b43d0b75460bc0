import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pino from 'pino';
import { PushDispatcher, type PushLogger, type SubscriptionSource } from '../../src/push/dispatcher.js';
import { PushPayload, type PushProvider, type PushResult, type Subscription } from '../../src/push/provider.js';
import { pushForMessage, type PushRecord } from '../../src/push/push-payload.js';
import { memoryLogger, message } from './helpers.js';

const record = pushForMessage(message(), 'Den') as PushRecord;
const nobody = { viewing: () => false };

function hook(id: string, over: Partial<Subscription> = {}): Subscription {
  return {
    id,
    provider: 'webhook',
    url: 'http://127.0.0.1:9/x',
    secret: 'a-long-enough-secret',
    ...over,
  } as Subscription;
}

function source(subs: Subscription[]): SubscriptionSource & { removed: string[] } {
  const removed: string[] = [];
  return {
    removed,
    list: () => subs.filter((s) => !removed.includes(s.id)),
    remove: (id) => void removed.push(id),
    has: (id) => subs.some((s) => s.id === id) && !removed.includes(id),
  };
}

/** A provider that answers from a script per subscription and records what it was sent. */
function scripted(results: (sub: Subscription, n: number) => PushResult | Promise<PushResult>) {
  const sent: { sub: string; payload: PushPayload }[] = [];
  const counts = new Map<string, number>();
  const provider: PushProvider = {
    name: 'webhook',
    async send(sub, payload) {
      const n = (counts.get(sub.id) ?? 0) + 1;
      counts.set(sub.id, n);
      sent.push({ sub: sub.id, payload });
      return results(sub, n);
    },
  };
  return { provider, sent, counts };
}

function recordingSleep() {
  const slept: number[] = [];
  return { slept, sleep: async (ms: number) => void slept.push(ms) };
}

describe('PushDispatcher', () => {
  it('sends the record with the policy’s delivery hints to each subscription', async () => {
    const { provider, sent } = scripted(() => ({ status: 'ok' }));
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: source([hook('a'), hook('b')]),
      presence: nobody,
      logger: memoryLogger(),
    });
    const outcomes = await d.send(record);
    assert.deepEqual(outcomes, [
      { subscription: 'a', status: 'ok', attempts: 1 },
      { subscription: 'b', status: 'ok', attempts: 1 },
    ]);
    assert.equal(sent.length, 2);
    assert.deepEqual(PushPayload.parse(sent[0]?.payload), {
      ...record,
      collapse_key: 'chat:den',
      urgency: 'normal',
      silent: false,
    });
  });

  it('retries transient results with exponential backoff from 1 s, at most 3 attempts', async () => {
    const { provider, counts } = scripted((sub, n) =>
      sub.id === 'flaky' && n < 3
        ? { status: 'retry', detail: '503' }
        : sub.id === 'down'
          ? { status: 'retry', detail: '503' }
          : { status: 'ok' },
    );
    const { slept, sleep } = recordingSleep();
    const logger = memoryLogger();
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: source([hook('flaky'), hook('down')]),
      presence: nobody,
      logger,
      sleep,
    });
    const outcomes = await d.send(record);
    assert.deepEqual(outcomes, [
      { subscription: 'flaky', status: 'ok', attempts: 3 },
      { subscription: 'down', status: 'failed', attempts: 3, detail: '503' },
    ]);
    assert.equal(counts.get('down'), 3);
    assert.deepEqual(
      slept.sort((a, b) => a - b),
      [1000, 1000, 2000, 2000],
    );
    assert.ok(logger.lines.some((l) => l.level === 'warn' && l.msg.includes('out of retries')));
  });

  it('a subscription removed while its delivery backs off (its device revoked) is not tried again', async () => {
    const { provider, counts } = scripted(() => ({ status: 'retry', detail: '503' }));
    const subs = source([hook('a')]);
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: subs,
      presence: nobody,
      logger: memoryLogger(),
      sleep: async () => void subs.removed.push('a'),
    });
    assert.deepEqual(await d.send(record), [{ subscription: 'a', status: 'skipped', reason: 'removed' }]);
    assert.equal(counts.get('a'), 1);
  });

  it('waits for a longer Retry-After, capped', async () => {
    const { provider } = scripted((_s, n) =>
      n === 1
        ? { status: 'retry', detail: '429', retryAfterMs: 5000 }
        : n === 2
          ? { status: 'retry', detail: '429', retryAfterMs: 10 * 60_000 }
          : { status: 'ok' },
    );
    const { slept, sleep } = recordingSleep();
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: source([hook('a')]),
      presence: nobody,
      logger: memoryLogger(),
      sleep,
    });
    await d.send(record);
    assert.deepEqual(slept, [5000, 60_000]);
  });

  it('removes a gone subscription, and does not retry failed ones', async () => {
    const { provider, counts } = scripted((sub) =>
      sub.id === 'old' ? { status: 'gone', detail: '410' } : { status: 'failed', detail: '400' },
    );
    const subs = source([hook('old'), hook('bad')]);
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: subs,
      presence: nobody,
      logger: memoryLogger(),
    });
    const outcomes = await d.send(record);
    assert.deepEqual(subs.removed, ['old']);
    assert.equal(outcomes[1]?.status, 'failed');
    assert.equal(counts.get('bad'), 1);
  });

  it('applies the policy per subscription and skips those without a provider', async () => {
    const { provider, sent } = scripted(() => ({ status: 'ok' }));
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: source([
        hook('all'),
        hook('asks', { prefs: { mode: 'asks_only' } }),
        {
          id: 'browser',
          provider: 'web-push',
          endpoint: 'https://push.example/x',
          keys: { p256dh: 'k', auth: 'a' },
        },
      ]),
      presence: nobody,
      logger: memoryLogger(),
    });
    const outcomes = await d.send(record);
    assert.deepEqual(outcomes, [
      { subscription: 'all', status: 'ok', attempts: 1 },
      { subscription: 'asks', status: 'skipped', reason: 'mode' },
      { subscription: 'browser', status: 'skipped', reason: 'no_provider' },
    ]);
    assert.deepEqual(
      sent.map((s) => s.sub),
      ['all'],
    );
  });

  it('bounds concurrent sends', async () => {
    let active = 0;
    let peak = 0;
    const provider: PushProvider = {
      name: 'webhook',
      async send() {
        active++;
        peak = Math.max(peak, active);
        await new Promise((r) => setTimeout(r, 5));
        active--;
        return { status: 'ok' };
      },
    };
    const subs = Array.from({ length: 12 }, (_, i) => hook(`s${i}`));
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: source(subs),
      presence: nobody,
      logger: memoryLogger(),
      concurrency: 3,
    });
    const outcomes = await d.send(record);
    assert.equal(outcomes.filter((o) => o.status === 'ok').length, 12);
    assert.equal(peak, 3);
  });

  it('drops deliveries past maxPending instead of queueing without bound', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const provider: PushProvider = { name: 'webhook', send: async () => (await gate, { status: 'ok' }) };
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: source([hook('a'), hook('b'), hook('c')]),
      presence: nobody,
      logger: memoryLogger(),
      maxPending: 2,
    });
    const p = d.send(record);
    release();
    const outcomes = await p;
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['ok', 'ok', 'dropped'],
    );
  });

  it('never throws or rejects into the caller: a throwing provider, source or policy is logged', async () => {
    const logger = memoryLogger();
    const throwing: PushProvider = {
      name: 'webhook',
      send: () => {
        throw new Error('boom');
      },
    };
    const badRemove: SubscriptionSource = {
      list: () => [hook('a')],
      remove: () => {
        throw new Error('db locked');
      },
      has: () => true,
    };
    const d1 = new PushDispatcher({ providers: [throwing], subscriptions: badRemove, presence: nobody, logger });
    const o1 = await d1.send(record);
    assert.equal(o1[0]?.status, 'failed');
    assert.match(o1[0]?.status === 'failed' ? (o1[0].detail ?? '') : '', /provider threw: boom/);

    const gone: PushProvider = { name: 'webhook', send: async () => ({ status: 'gone', detail: '410' }) };
    const d2 = new PushDispatcher({ providers: [gone], subscriptions: badRemove, presence: nobody, logger });
    assert.equal((await d2.send(record))[0]?.status, 'gone');
    assert.ok(logger.lines.some((l) => l.level === 'error' && l.msg.includes('removing a gone subscription failed')));

    const brokenList: SubscriptionSource = {
      list: () => Promise.reject(new Error('no db')),
      remove: () => undefined,
      has: () => false,
    };
    const d3 = new PushDispatcher({ providers: [gone], subscriptions: brokenList, presence: nobody, logger });
    assert.deepEqual(await d3.send(record), []);

    const d4 = new PushDispatcher({
      providers: [gone],
      subscriptions: source([hook('a')]),
      presence: {
        viewing: () => {
          throw new Error('presence down');
        },
      },
      logger,
    });
    assert.equal((await d4.send(record))[0]?.status, 'failed');

    assert.doesNotThrow(() => d3.dispatch(record));
    await d3.idle();
  });

  it('dispatch is fire and forget; idle() waits for retries to finish', async () => {
    const { provider, counts } = scripted((_s, n) => (n < 3 ? { status: 'retry', detail: 'x' } : { status: 'ok' }));
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: source([hook('a')]),
      presence: nobody,
      logger: memoryLogger(),
      sleep: (ms) => new Promise((r) => setTimeout(r, ms / 100)),
    });
    assert.equal(d.dispatch(record), undefined);
    await d.idle();
    assert.equal(counts.get('a'), 3);
  });

  it('takes a pino logger as is', () => {
    const logger: PushLogger = pino({ level: 'silent' });
    assert.ok(logger);
  });
});
