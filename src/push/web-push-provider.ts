import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import type https from 'node:https';
import path from 'node:path';
import webPush from 'web-push';
import { z } from 'zod';
import {
  errorDetail,
  parseRetryAfter,
  type PushPayload,
  type PushProvider,
  type PushResult,
  type Subscription,
} from './provider.js';

/**
 * Web Push (RFC 8030) with VAPID (RFC 8292) and aes128gcm payload encryption (RFC 8291), through the web-push package.
 *
 * The VAPID key pair is made once and kept in a 0600 JSON file at the path the caller gives: every browser
 * subscription is bound to the public key it was created with, so a new pair would silently orphan them all. That is
 * also why an unreadable key file is an error rather than a reason to make a new pair.
 *
 * Results: 2xx ok; 404/410 gone (the subscription expired or was unsubscribed); 429 and 5xx retry, honouring
 * Retry-After; other statuses (400 bad request, 403 key mismatch, 413 too large) failed; network errors and
 * timeouts retry.
 */

const PUBLIC_KEY_BYTES = 65;
const PRIVATE_KEY_BYTES = 32;

const base64urlOf = (bytes: number) =>
  z.string().refine((s) => /^[A-Za-z0-9_-]+$/.test(s) && Buffer.from(s, 'base64url').length === bytes, {
    message: `expected ${bytes} bytes, base64url`,
  });

export const VapidKeys = z.object({
  publicKey: base64urlOf(PUBLIC_KEY_BYTES),
  privateKey: base64urlOf(PRIVATE_KEY_BYTES),
});
export type VapidKeys = z.infer<typeof VapidKeys>;

export interface WebPushProviderOptions {
  /** Where the VAPID key pair lives (made on first use). */
  keyPath: string;
  /** VAPID subject: a mailto: or https: URL push services may use to reach the operator. */
  subject?: string;
  /** How long a push service holds an undelivered push. */
  ttlSeconds?: number;
  timeoutMs?: number;
  /** A TLS agent for the push service connection (tests trust their own CA with one). */
  agent?: https.Agent;
  /** Why the endpoint may not be sent to now (webhook-target.ts), or null; checked before each send. */
  refusal?(endpoint: string): Promise<string | null>;
}

export const DEFAULT_VAPID_SUBJECT = 'mailto:leo@localhost';
export const DEFAULT_WEB_PUSH_TTL_S = 24 * 60 * 60;
export const DEFAULT_WEB_PUSH_TIMEOUT_MS = 10_000;

export class WebPushProvider implements PushProvider {
  readonly name = 'web-push';

  private constructor(
    private readonly keys: VapidKeys,
    private readonly opts: WebPushProviderOptions,
  ) {}

  static async open(opts: WebPushProviderOptions): Promise<WebPushProvider> {
    const keys = await loadOrCreateVapidKeys(opts.keyPath);
    // Fails now, not on the first push, when the subject is not one a push service accepts.
    webPush.getVapidHeaders(
      'https://push.invalid',
      opts.subject ?? DEFAULT_VAPID_SUBJECT,
      keys.publicKey,
      keys.privateKey,
      'aes128gcm',
    );
    return new WebPushProvider(keys, opts);
  }

  /** The applicationServerKey clients pass to pushManager.subscribe(). */
  publicKey(): string {
    return this.keys.publicKey;
  }

  async send(sub: Subscription, payload: PushPayload): Promise<PushResult> {
    if (sub.provider !== 'web-push')
      return { status: 'failed', detail: `not a web-push subscription (${sub.provider})` };
    const refused = await this.opts.refusal?.(sub.endpoint);
    if (refused) return { status: 'failed', detail: refused };
    try {
      await webPush.sendNotification({ endpoint: sub.endpoint, keys: sub.keys }, JSON.stringify(payload), {
        vapidDetails: {
          subject: this.opts.subject ?? DEFAULT_VAPID_SUBJECT,
          publicKey: this.keys.publicKey,
          privateKey: this.keys.privateKey,
        },
        contentEncoding: 'aes128gcm',
        TTL: this.opts.ttlSeconds ?? DEFAULT_WEB_PUSH_TTL_S,
        urgency: payload.urgency,
        topic: topicFor(payload.collapse_key),
        timeout: this.opts.timeoutMs ?? DEFAULT_WEB_PUSH_TIMEOUT_MS,
        ...(this.opts.agent ? { agent: this.opts.agent } : {}),
      });
      return { status: 'ok' };
    } catch (err) {
      return resultOfError(err);
    }
  }
}

/**
 * The Topic header takes at most 32 base64url characters, and a collapse key holds an agent name or message id;
 * a digest fits and keeps those out of the push service's view.
 */
export function topicFor(collapseKey: string): string {
  return createHash('sha256').update(collapseKey).digest('base64url').slice(0, 32);
}

function resultOfError(err: unknown): PushResult {
  const e = err as { statusCode?: unknown; headers?: Record<string, string | string[] | undefined>; body?: unknown };
  if (typeof e.statusCode === 'number') {
    const status = e.statusCode;
    const detail = `push service answered ${status}${typeof e.body === 'string' && e.body ? `: ${e.body.slice(0, 200)}` : ''}`;
    if (status === 404 || status === 410) return { status: 'gone', detail };
    if (status === 429 || status >= 500) {
      const retryAfterMs = parseRetryAfter(e.headers?.['retry-after']);
      return retryAfterMs === undefined ? { status: 'retry', detail } : { status: 'retry', detail, retryAfterMs };
    }
    return { status: 'failed', detail };
  }
  // web-push throws plain Errors for a subscription or payload it will never send; socket errors carry a code, and
  // its own socket timeout is the one message-only error worth another try.
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string' || (err instanceof Error && err.message === 'Socket timeout')) {
    return { status: 'retry', detail: errorDetail(err) };
  }
  return { status: 'failed', detail: errorDetail(err) };
}

export async function loadOrCreateVapidKeys(file: string): Promise<VapidKeys> {
  const existing = await readKeys(file);
  if (existing) return existing;
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const fresh = webPush.generateVAPIDKeys();
  const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(fresh, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
  try {
    // link() refuses to replace: whoever made the file first wins, and everyone uses that pair.
    await fs.link(tmp, file);
    return VapidKeys.parse(fresh);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const winner = await readKeys(file);
    if (!winner) throw new Error(`VAPID key file ${file} vanished while being created`);
    return winner;
  } finally {
    await fs.rm(tmp, { force: true });
  }
}

async function readKeys(file: string): Promise<VapidKeys | null> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(
      `VAPID key file ${file} is not JSON; fix or remove it (removing it orphans every Web Push subscription)`,
    );
  }
  const keys = VapidKeys.safeParse(parsed);
  if (!keys.success) {
    throw new Error(
      `VAPID key file ${file} is invalid: ${keys.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const { mode } = await fs.stat(file);
  // A private key readable by others is a key others can push with; tighten rather than refuse.
  if ((mode & 0o077) !== 0) await fs.chmod(file, 0o600);
  return keys.data;
}
