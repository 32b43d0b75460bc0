import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  errorDetail,
  parseRetryAfter,
  type PushPayload,
  type PushProvider,
  type PushResult,
  type Subscription,
} from './provider.js';

/**
 * Pushes as a signed JSON POST, for relays (an APNs bridge, a home server, a chat bot) that Leo cannot speak to
 * natively. The body is the PushPayload as JSON; `X-Leo-Signature: sha256=<hex>` is HMAC-SHA256 over those exact
 * bytes with the subscription's secret, so a receiver must verify before parsing. Receivers deduplicate by
 * message_id: a push whose answer was lost to a timeout is sent again.
 *
 * Results: 2xx ok; 410 gone; 408, 429 and 5xx retry (honouring Retry-After); a timeout (10 s by default) or a network
 * error retry; anything else, redirects included (a POST body is not replayed to a place nobody configured), failed.
 */

export const SIGNATURE_HEADER = 'x-leo-signature';
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 10_000;

export interface WebhookProviderOptions {
  timeoutMs?: number;
  /** Why the subscription's URL may not be posted to now (webhook-target.ts), or null; checked before each send. */
  refusal?(url: string): Promise<string | null>;
}

export class WebhookProvider implements PushProvider {
  readonly name = 'webhook';

  constructor(private readonly opts: WebhookProviderOptions = {}) {}

  async send(sub: Subscription, payload: PushPayload): Promise<PushResult> {
    if (sub.provider !== 'webhook') return { status: 'failed', detail: `not a webhook subscription (${sub.provider})` };
    const refused = await this.opts.refusal?.(sub.url);
    if (refused) return { status: 'failed', detail: refused };
    const body = JSON.stringify(payload);
    let res: Response;
    try {
      res = await fetch(sub.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': 'leo-push',
          [SIGNATURE_HEADER]: signBody(sub.secret, body),
        },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS),
      });
    } catch (err) {
      const timedOut = err instanceof Error && err.name === 'TimeoutError';
      return { status: 'retry', detail: timedOut ? 'webhook timed out' : errorDetail(causeOf(err)) };
    }
    // Only the status matters; drop the body so the connection can be reused or closed.
    await res.body?.cancel().catch(() => undefined);
    const status = res.status;
    if (status >= 200 && status < 300) return { status: 'ok' };
    const detail = `webhook answered ${status}`;
    if (status === 410) return { status: 'gone', detail };
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      return retryAfterMs === undefined ? { status: 'retry', detail } : { status: 'retry', detail, retryAfterMs };
    }
    return { status: 'failed', detail };
  }
}

/** The X-Leo-Signature value for a body. */
export function signBody(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** For receivers: whether a signature header matches the raw body, in constant time. */
export function verifySignature(secret: string, body: string | Buffer, header: string | null | undefined): boolean {
  if (!header) return false;
  const expected = Buffer.from(signBody(secret, body));
  const given = Buffer.from(header);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

// fetch wraps socket errors as "fetch failed" with the real one as cause.
function causeOf(err: unknown): unknown {
  return err instanceof Error && err.cause !== undefined ? err.cause : err;
}
