import { signal } from '@preact/signals';
import type { DeliveryEntry, SubscriptionSummary } from '../../wire/push.js';
import type { PushPrefs } from '../../wire/push.js';
import { api, onUnpaired } from './auth.js';
import { followUpdates } from './shell-update.js';

/**
 * This device's push: the service worker (sw/sw.ts), its subscription at the daemon, the preferences on it, the
 * test push and the delivery log. "Subscribed" is what the daemon holds for this device's token (a web-push
 * subscription), so a phone whose browser lost its PushSubscription still sees it and can unsubscribe.
 */
export const subscriptions = signal<SubscriptionSummary[]>([]);
export const deliveries = signal<DeliveryEntry[]>([]);
export const pushStatus = signal<string>('');
export const pushBusy = signal(false);

/** PushManager.subscribe never settles in some contexts (a headless browser): give up after this long. */
const SUBSCRIBE_TIMEOUT_MS = 15_000;

/** Why this browser cannot take pushes here, or null. */
export function pushUnsupported(): string | null {
  if (!window.isSecureContext)
    return 'Push needs a secure address: open Leo over HTTPS (leo remote) or on this machine at 127.0.0.1.';
  if (!('serviceWorker' in navigator) || !('PushManager' in window))
    return 'This browser cannot take pushes. On an iPhone or iPad, add Leo to the Home Screen (Share → Add to Home Screen) and open it from there.';
  return null;
}

/**
 * Registers the service worker, follows its "open this" messages (a tapped notification while the app is open) and
 * its updates (a new build's shell).
 */
export function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.addEventListener('message', (e: MessageEvent) => {
    const data = e.data as { type?: unknown; url?: unknown } | null;
    if (data?.type !== 'leo.open' || typeof data.url !== 'string') return;
    const url = new URL(data.url, location.origin);
    if (url.origin === location.origin) location.hash = url.hash;
  });
  void navigator.serviceWorker
    .register('/sw.js')
    .then(followUpdates)
    .catch((err: Error) => (pushStatus.value = err.message));
}

export const webPushSubscriptions = () => subscriptions.value.filter((s) => s.provider === 'web-push');

async function guarded(work: () => Promise<void>): Promise<void> {
  pushBusy.value = true;
  try {
    await work();
  } catch (err) {
    if (!(await onUnpaired(err))) pushStatus.value = (err as Error).message;
  } finally {
    pushBusy.value = false;
  }
}

export function refreshPush(): Promise<void> {
  return guarded(async () => {
    const [subs, log] = await Promise.all([api.pushSubscriptions(), api.pushDeliveries()]);
    subscriptions.value = subs;
    deliveries.value = log;
  });
}

export function subscribe(): Promise<void> {
  return guarded(async () => {
    const permission = await Notification.requestPermission();
    if (permission !== 'granted') {
      pushStatus.value = 'Notifications are blocked for Leo in this browser: allow them in its site settings.';
      return;
    }
    const registration = await navigator.serviceWorker.ready;
    const { public_key } = await api.vapidPublicKey();
    const sub = await withTimeout(
      registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: base64url(public_key) }),
      SUBSCRIBE_TIMEOUT_MS,
    );
    const json = sub.toJSON() as { endpoint?: string; keys?: { p256dh?: string; auth?: string } };
    if (!json.endpoint || !json.keys?.p256dh || !json.keys.auth)
      throw new Error('the browser gave no usable subscription');
    // The preferences set so far carry over to the new subscription.
    const prefs = webPushSubscriptions()[0]?.prefs;
    await api.subscribePush(
      { endpoint: json.endpoint, keys: { p256dh: json.keys.p256dh, auth: json.keys.auth } },
      prefs,
    );
    pushStatus.value = 'Subscribed: pushes come to this device.';
    subscriptions.value = await api.pushSubscriptions();
  });
}

export function unsubscribe(): Promise<void> {
  return guarded(async () => {
    const registration = await navigator.serviceWorker?.getRegistration();
    await (await registration?.pushManager.getSubscription())?.unsubscribe();
    for (const s of webPushSubscriptions()) await api.unsubscribePush(s.id);
    pushStatus.value = 'Unsubscribed: no more pushes to this device.';
    subscriptions.value = await api.pushSubscriptions();
  });
}

export function savePrefs(prefs: PushPrefs): Promise<void> {
  const ids = new Set(webPushSubscriptions().map((s) => s.id));
  // Shown at once (a radio that jumped back until the answer came would look refused); the daemon's answer settles it.
  subscriptions.value = subscriptions.value.map((s) => (ids.has(s.id) ? { ...s, prefs } : s));
  return guarded(async () => {
    try {
      for (const id of ids) await api.setPushPrefs(id, prefs);
      pushStatus.value = 'Preferences saved.';
    } finally {
      subscriptions.value = await api.pushSubscriptions();
    }
  });
}

export function sendTestPush(): Promise<void> {
  return guarded(async () => {
    const { deliveries: sent } = await api.testPush();
    pushStatus.value =
      sent.length === 0
        ? 'This device has no subscription to push to.'
        : `Test push: ${sent.map(describeDelivery).join('; ')}`;
    deliveries.value = await api.pushDeliveries();
  });
}

/** One delivery log entry in words: what became of the push. */
export function describeDelivery(e: DeliveryEntry): string {
  switch (e.outcome) {
    case 'sent':
      return 'sent';
    case 'suppressed':
      return e.reason === 'viewing'
        ? 'suppressed: you were viewing the thread'
        : e.reason === 'mode'
          ? 'suppressed: your preferences'
          : e.reason === 'quiet_hours'
            ? 'suppressed: quiet hours'
            : `suppressed: ${e.reason ?? 'policy'}`;
    case 'failed':
      return `failed: ${e.detail ?? 'no answer'}`;
    case 'gone':
      return `failed: the push service ended this subscription (${e.detail ?? 'gone'})`;
    case 'dropped':
      return 'dropped: too many pushes waiting';
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the browser’s push service did not answer')), ms);
    p.then(resolve, reject).finally(() => clearTimeout(timer));
  });
}

function base64url(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s.replace(/-/g, '+').replace(/_/g, '/'));
  const out = new Uint8Array(new ArrayBuffer(bin.length));
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
