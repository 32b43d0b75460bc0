import PQueue from 'p-queue';
import { decidePush, type Presence, type PushPolicy } from './policy.js';
import { errorDetail, type PushPayload, type PushProvider, type PushResult, type Subscription } from './provider.js';
import type { PushRecord } from './push-payload.js';

/**
 * Fans a push record out to every subscription the policy lets it reach. Callers fire and forget: dispatch() never
 * throws and never rejects, and everything that goes wrong is logged (by subscription id: endpoints and secrets are
 * capabilities and stay out of logs, as does message text).
 *
 * Each delivery is tried at most maxAttempts times (3), waiting baseDelayMs × 2^n between tries (1 s, 2 s), or the
 * receiver's Retry-After when that is longer, capped at maxRetryAfterMs. Waiting happens outside the queue, so a
 * backing-off delivery holds no slot; the queue bounds concurrent sends (4), and at most maxPending deliveries
 * (sending or waiting) exist at once, past which new ones are dropped rather than grow without bound while a
 * receiver is down. A gone result removes the subscription.
 */

/** The minimal logger this module needs; a pino Logger fits. */
export interface PushLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SubscriptionSource {
  list(): readonly Subscription[] | Promise<readonly Subscription[]>;
  remove(id: string): void | Promise<void>;
  /** Asked before each retry: a subscription removed meanwhile (its device revoked) gets nothing more. */
  has(id: string): boolean | Promise<boolean>;
}

export interface PushDispatcherOptions {
  providers: readonly PushProvider[];
  subscriptions: SubscriptionSource;
  presence: Presence;
  logger: PushLogger;
  policy?: PushPolicy;
  /** Epoch ms, for quiet hours. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  concurrency?: number;
  maxAttempts?: number;
  baseDelayMs?: number;
  maxRetryAfterMs?: number;
  maxPending?: number;
  /** Told what became of each delivery (the delivery log); a throw is logged, never passed on. */
  onOutcome?: (record: PushRecord, outcome: DeliveryOutcome) => void;
}

/** Narrows one send: to some subscriptions only (a device's test push), under another policy. */
export interface SendOptions {
  only?: (sub: Subscription) => boolean;
  policy?: PushPolicy;
}

export type DeliveryOutcome =
  | { subscription: string; status: 'ok' | 'gone' | 'failed'; attempts: number; detail?: string }
  | { subscription: string; status: 'skipped'; reason: string }
  | { subscription: string; status: 'dropped' };

export const DEFAULT_PUSH_CONCURRENCY = 4;
export const DEFAULT_PUSH_ATTEMPTS = 3;
export const DEFAULT_PUSH_BASE_DELAY_MS = 1_000;
export const DEFAULT_MAX_RETRY_AFTER_MS = 60_000;
export const DEFAULT_MAX_PENDING = 1_000;

const realSleep = (ms: number) =>
  new Promise<void>((resolve) => {
    setTimeout(resolve, ms).unref();
  });

export class PushDispatcher {
  private readonly providers = new Map<string, PushProvider>();
  private readonly queue: PQueue;
  private readonly inFlight = new Set<Promise<unknown>>();
  private pending = 0;

  constructor(private readonly opts: PushDispatcherOptions) {
    for (const p of opts.providers) this.providers.set(p.name, p);
    this.queue = new PQueue({ concurrency: opts.concurrency ?? DEFAULT_PUSH_CONCURRENCY });
  }

  /** Fire and forget. */
  dispatch(record: PushRecord): void {
    void this.send(record);
  }

  /** dispatch() with the outcome per subscription, for callers and tests that want it; never rejects. */
  send(record: PushRecord, opts: SendOptions = {}): Promise<DeliveryOutcome[]> {
    const p = this.fanOut(record, opts).catch((err: unknown) => {
      this.opts.logger.error({ err: errorDetail(err), agent: record.agent }, 'push dispatch failed');
      return [];
    });
    this.inFlight.add(p);
    void p.finally(() => this.inFlight.delete(p));
    return p;
  }

  /** Resolves once every dispatch begun so far has settled, retries included (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  private async fanOut(record: PushRecord, opts: SendOptions): Promise<DeliveryOutcome[]> {
    const { logger } = this.opts;
    let subs: readonly Subscription[];
    try {
      subs = await this.opts.subscriptions.list();
    } catch (err) {
      logger.error({ err: errorDetail(err) }, 'push: listing subscriptions failed');
      return [];
    }
    const now = (this.opts.now ?? Date.now)();
    const policy = opts.policy ?? this.opts.policy ?? decidePush;
    return Promise.all(
      subs
        .filter((sub) => opts.only?.(sub) ?? true)
        .map((sub) =>
          this.toSubscription(record, sub, now, policy)
            .catch((err: unknown): DeliveryOutcome => {
              logger.error({ subscription: sub.id, err: errorDetail(err) }, 'push delivery failed');
              return { subscription: sub.id, status: 'failed', attempts: 0, detail: errorDetail(err) };
            })
            .then((outcome) => this.tell(record, outcome)),
        ),
    );
  }

  private tell(record: PushRecord, outcome: DeliveryOutcome): DeliveryOutcome {
    try {
      this.opts.onOutcome?.(record, outcome);
    } catch (err) {
      this.opts.logger.error({ subscription: outcome.subscription, err: errorDetail(err) }, 'push: onOutcome threw');
    }
    return outcome;
  }

  private async toSubscription(
    record: PushRecord,
    sub: Subscription,
    now: number,
    policy: PushPolicy,
  ): Promise<DeliveryOutcome> {
    const { logger } = this.opts;
    const decision = policy(record, sub.prefs, this.opts.presence, now);
    if (!decision.push) return { subscription: sub.id, status: 'skipped', reason: decision.reason };
    const provider = this.providers.get(sub.provider);
    if (!provider) {
      logger.warn({ subscription: sub.id, provider: sub.provider }, 'push: no provider for subscription');
      return { subscription: sub.id, status: 'skipped', reason: 'no_provider' };
    }
    if (this.pending >= (this.opts.maxPending ?? DEFAULT_MAX_PENDING)) {
      logger.warn({ subscription: sub.id, pending: this.pending }, 'push: too many deliveries pending, dropped');
      return { subscription: sub.id, status: 'dropped' };
    }
    const payload: PushPayload = {
      ...record,
      collapse_key: decision.collapse_key,
      urgency: decision.urgency,
      silent: decision.silent,
    };
    this.pending++;
    try {
      return await this.deliver(provider, sub, payload);
    } finally {
      this.pending--;
    }
  }

  private async deliver(provider: PushProvider, sub: Subscription, payload: PushPayload): Promise<DeliveryOutcome> {
    const { logger } = this.opts;
    const maxAttempts = Math.max(1, this.opts.maxAttempts ?? DEFAULT_PUSH_ATTEMPTS);
    const baseDelay = this.opts.baseDelayMs ?? DEFAULT_PUSH_BASE_DELAY_MS;
    const sleep = this.opts.sleep ?? realSleep;
    const log = { subscription: sub.id, provider: provider.name, message_id: payload.message_id };
    for (let attempt = 1; ; attempt++) {
      if (attempt > 1 && !(await this.opts.subscriptions.has(sub.id)))
        return { subscription: sub.id, status: 'skipped', reason: 'removed' };
      const result = await this.queue.add(() => safeSend(provider, sub, payload));
      switch (result.status) {
        case 'ok':
          logger.debug({ ...log, attempts: attempt }, 'push sent');
          return { subscription: sub.id, status: 'ok', attempts: attempt };
        case 'gone':
          logger.info({ ...log, detail: result.detail }, 'push subscription gone, removing it');
          await this.remove(sub.id);
          return { subscription: sub.id, status: 'gone', attempts: attempt, detail: result.detail };
        case 'failed':
          logger.warn({ ...log, attempts: attempt, detail: result.detail }, 'push failed');
          return { subscription: sub.id, status: 'failed', attempts: attempt, detail: result.detail };
        case 'retry': {
          if (attempt >= maxAttempts) {
            logger.warn({ ...log, attempts: attempt, detail: result.detail }, 'push failed, out of retries');
            return { subscription: sub.id, status: 'failed', attempts: attempt, detail: result.detail };
          }
          const backoff = baseDelay * 2 ** (attempt - 1);
          const asked = Math.min(result.retryAfterMs ?? 0, this.opts.maxRetryAfterMs ?? DEFAULT_MAX_RETRY_AFTER_MS);
          const delay = Math.max(backoff, asked);
          logger.debug({ ...log, attempt, delay, detail: result.detail }, 'push will retry');
          await sleep(delay);
        }
      }
    }
  }

  private async remove(id: string): Promise<void> {
    try {
      await this.opts.subscriptions.remove(id);
    } catch (err) {
      this.opts.logger.error({ subscription: id, err: errorDetail(err) }, 'push: removing a gone subscription failed');
    }
  }
}

// A provider that breaks its never-reject contract costs one failed delivery, not the dispatcher.
async function safeSend(provider: PushProvider, sub: Subscription, payload: PushPayload): Promise<PushResult> {
  try {
    return await provider.send(sub, payload);
  } catch (err) {
    return { status: 'failed', detail: `provider threw: ${errorDetail(err)}` };
  }
}
