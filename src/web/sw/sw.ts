// Leo Web's service worker: the app shell offline, and push notifications. Dependency-free, built on its own into
// /sw.js (vite.config.ts), which writes in SHELL_VERSION and SHELL_FILES: this build's shell, so a new build is a new
// worker (docs/WEB.md "Offline"). The push payload is the daemon's PushPayload (src/push/provider.ts), read
// defensively: it arrives from a push service; docs/WEB.md "Push".
'use strict';
// A classic script, as the app registers it: `self` is retyped once here (redeclaring it would clash with the lib's).
const sw = self as unknown as ServiceWorkerGlobalScope & { leo?: unknown; Notification?: { maxActions?: number } };

/** A push's payload as this worker reads it: any field may be missing or of another type. */
interface Payload {
  kind?: unknown;
  title?: unknown;
  body?: unknown;
  agent?: string;
  message_id?: string;
  message_kind?: unknown;
  input_type?: unknown;
  options?: unknown;
  partial?: unknown;
  collapse_key?: string;
  silent?: unknown;
  urgency?: unknown;
}

/** What a notification keeps for its click: where it opens, and the card its actions answer. */
interface NotificationData {
  url?: string;
  agent?: string;
  message_id?: string;
  answers?: unknown;
}

type AnswerBody = { values: string[] };

/**
 * What this worker reads of a subscription the daemon lists (wire/push.ts SubscriptionSummary). Not imported: any
 * import, even of types only, makes the file a module, which builds with an `export {}` a classic script cannot run.
 */
type Subscription = { id: string; provider: string; prefs?: unknown };

/** What showNotification takes where the platform has them (TypeScript's lib leaves actions and renotify out). */
type ShownOptions = NotificationOptions & { actions?: { action: string; title: string }[]; renotify?: boolean };

/** This build's version (a hash of the shell's bytes) and the shell's paths, written in by the build. */
declare const SHELL_VERSION: string;
declare const SHELL_FILES: string[];
const SHELL_CACHE = `leo-shell-${SHELL_VERSION}`;

/** What Chromium's static routing takes at install (not in TypeScript's lib): requests that never wake this worker. */
type RoutedInstall = ExtendableEvent & { addRoutes?: (rules: object[]) => Promise<void> };

// A new build's worker waits: the page in use keeps the shell it started with until the owner taps Reload in the app
// (stores/shell-update.ts), which asks for `leo.update`. The first install replaces no shell, so it activates at once.
sw.addEventListener('install', (event: RoutedInstall) => {
  event.waitUntil(precache());
  // /api (calls and the event stream) is network only: where the platform can, it bypasses this worker altogether.
  // A platform that refuses the rule (an older form of the API) still installs: the fetch handler passes /api by.
  if (event.addRoutes)
    event.waitUntil(
      event.addRoutes([{ condition: { urlPattern: '/api/*' }, source: 'network' }]).catch(() => undefined),
    );
});
sw.addEventListener('activate', (event) => event.waitUntil(dropOldShells().then(() => sw.clients.claim())));
sw.addEventListener('message', (event) => {
  if ((event.data as { type?: unknown } | null)?.type === 'leo.update') void sw.skipWaiting();
});

/**
 * Fetches this build's whole shell into its own cache, or fails the install (the old worker stays): an index.html
 * naming a file this build does not list means the daemon's files changed under the install (a rebuild meanwhile).
 */
async function precache(): Promise<void> {
  const cache = await caches.open(SHELL_CACHE);
  await cache.addAll(SHELL_FILES);
  const index = await (await cache.match('/'))!.text();
  for (const m of index.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g))
    if (!SHELL_FILES.includes(m[1]!)) throw new Error(`index.html names ${m[1]}, not in this build`);
}

async function dropOldShells(): Promise<void> {
  for (const key of await caches.keys())
    if (key.startsWith('leo-shell-') && key !== SHELL_CACHE) await caches.delete(key);
}

// Only the shell comes from the cache: the document (any navigation to `/`) and the build's files. Everything else,
// /api above all, goes to the network as if this worker were not there; a shell file missing from the cache too.
sw.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== sw.location.origin || url.pathname.startsWith('/api/')) return;
  const shell = req.mode === 'navigate' ? url.pathname === '/' : SHELL_FILES.includes(url.pathname);
  if (!shell) return;
  event.respondWith(
    caches.match(url.pathname, { cacheName: SHELL_CACHE, ignoreVary: true }).then((hit) => hit ?? fetch(req)),
  );
});

// Every push shows a notification, even one that cannot be read: iOS revokes a subscription whose pushes show nothing.
sw.addEventListener('push', (event) => {
  let payload: Payload | null = null;
  try {
    payload = event.data ? event.data.json() : null;
  } catch {
    payload = null;
  }
  const n = notificationFor(payload);
  event.waitUntil(sw.registration.showNotification(n.title, n.options));
});

sw.addEventListener('notificationclick', (event) => {
  event.waitUntil(onNotificationClick(event.notification, event.action));
});

// The push service rotated or expired this device's subscription: without the new one at the daemon, pushes stop.
sw.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(resubscribe(event.oldSubscription, event.newSubscription).catch(() => 'failed'));
});

/**
 * Hands the daemon the browser's new subscription (one the browser made, or a fresh one under the same key), with the
 * preferences the old one had, then removes this device's other web-push subscriptions: a device token is one
 * browser, which holds one subscription.
 */
async function resubscribe(old: PushSubscription | null, fresh: PushSubscription | null): Promise<string> {
  const token = await deviceToken();
  if (!token) return 'unpaired';
  const call = (method: string, path: string, body?: unknown) =>
    fetch(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      cache: 'no-store',
    });
  const data = async <T>(res: Response): Promise<T | null> =>
    res.ok ? ((await res.json()) as { data: T }).data : null;
  let sub = fresh;
  if (!sub) {
    const key =
      (old && old.options && old.options.applicationServerKey) ||
      (await data<{ public_key: string }>(await call('GET', '/api/v1/push/vapid-public-key')))?.public_key;
    if (!key) return 'failed';
    sub = await sw.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  }
  const mine = ((await data<Subscription[]>(await call('GET', '/api/v1/push/subscriptions'))) || []).filter(
    (s) => s.provider === 'web-push',
  );
  const { endpoint, keys } = sub.toJSON();
  const prefs = mine[0] && mine[0].prefs;
  const made = await data<Subscription>(
    await call('POST', '/api/v1/push/subscriptions', {
      provider: 'web-push',
      endpoint,
      keys,
      ...(prefs ? { prefs } : {}),
    }),
  );
  if (!made) return 'failed';
  for (const s of mine)
    if (s.id !== made.id) await call('DELETE', `/api/v1/push/subscriptions/${encodeURIComponent(s.id)}`);
  return 'resubscribed';
}

/** The thread (at the message) a push is about; the settings for a test push; the app otherwise. */
function deepLink(p: Payload | null): string {
  if (p && p.kind === 'test') return '/#/settings';
  if (!p || !p.agent) return '/';
  const thread = `/#/t/${encodeURIComponent(p.agent)}`;
  return p.message_id ? `${thread}/m/${encodeURIComponent(p.message_id)}` : thread;
}

/** What a notification's action buttons answer, as the answer route's body; one per action, in order. */
function answersFor(p: Payload | null): { title: string; body: AnswerBody }[] {
  if (!p || !p.message_id) return [];
  if (p.kind === 'needs_input' && p.message_kind === 'permission') {
    const deny = { title: 'Deny', body: { values: ['deny'] } };
    // The body does not show all that Allow would approve: only the card, opened whole, offers Allow.
    return p.partial === true ? [deny] : [{ title: 'Allow', body: { values: ['allow'] } }, deny];
  }
  if (p.kind === 'chat' && p.message_kind === 'ask' && p.input_type === 'buttons' && Array.isArray(p.options)) {
    const max = (sw.Notification && sw.Notification.maxActions) || 2;
    // A partial set of buttons would misstate the choices: all of them fit, or the notification just opens the card.
    if (p.options.length > max) return [];
    return p.options.map((o: { label: unknown; value: unknown }) => ({
      title: String(o.label),
      body: { values: [String(o.value)] },
    }));
  }
  return [];
}

function notificationFor(p: Payload | null): { title: string; options: ShownOptions } {
  if (!p || typeof p.title !== 'string')
    return { title: 'Leo', options: { body: 'Something new in Leo', data: { url: '/' } } };
  const answers = answersFor(p);
  return {
    title: p.title || 'Leo',
    options: {
      body: typeof p.body === 'string' ? p.body : '',
      tag: p.collapse_key || undefined,
      renotify: Boolean(p.collapse_key),
      silent: p.silent === true,
      requireInteraction: p.urgency === 'high',
      icon: '/icon-192.png',
      badge: '/icon-192.png',
      actions: answers.map((a, i) => ({ action: `answer:${i}`, title: a.title })),
      data: { url: deepLink(p), agent: p.agent, message_id: p.message_id, answers: answers.map((a) => a.body) },
    },
  };
}

/** A tap opens (or focuses) the app at the deep link; an action answers the card with this device's token. */
async function onNotificationClick(notification: Notification, action: string): Promise<string> {
  const data: NotificationData = notification.data || {};
  notification.close();
  const m = /^answer:(\d+)$/.exec(action || '');
  const body = m && Array.isArray(data.answers) ? data.answers[Number(m[1])] : undefined;
  if (body && data.agent && data.message_id) {
    const answered = await answer(data.agent, data.message_id, body).catch(() => false);
    if (answered) return 'answered';
    // Refused (settled meanwhile, unpaired, offline): the card in the app says why.
  }
  await openApp(data.url || '/');
  return 'opened';
}

async function answer(agent: string, id: string, body: AnswerBody): Promise<boolean> {
  const token = await deviceToken();
  if (!token) return false;
  const res = await fetch(`/api/v1/chat/${encodeURIComponent(agent)}/messages/${encodeURIComponent(id)}/answer`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    cache: 'no-store',
  });
  return res.ok;
}

async function openApp(url: string): Promise<WindowClient | null> {
  const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const open = windows.find((w) => new URL(w.url).origin === sw.location.origin);
  if (open) {
    // The app follows its hash route; a message moves it without reloading the page.
    open.postMessage({ type: 'leo.open', url });
    // Focus is refused outside a notification's own click (the platform's rule); the app has moved all the same.
    return open.focus().catch(() => open);
  }
  return sw.clients.openWindow(url);
}

/** The device token from the app's IndexedDB (`leo` / `auth` / `device-token`, src/web/api/idb.ts), or null. */
function deviceToken(): Promise<string | null> {
  return new Promise((resolve) => {
    const req = indexedDB.open('leo');
    // No database yet: never create one here (the app's own upgrade makes it), so there is no token.
    req.onupgradeneeded = () => req.transaction?.abort();
    req.onerror = () => resolve(null);
    req.onsuccess = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('auth')) {
        db.close();
        return resolve(null);
      }
      const tx = db.transaction('auth', 'readonly');
      const get = tx.objectStore('auth').get('device-token');
      get.onsuccess = () => resolve(typeof get.result === 'string' ? get.result : null);
      get.onerror = () => resolve(null);
      tx.oncomplete = () => db.close();
    };
  });
}

// For the browser test, which calls the handlers through the worker (a synthetic event cannot waitUntil, and the
// test browser has no push service to rotate a subscription).
sw.leo = { onNotificationClick, notificationFor, resubscribe };
