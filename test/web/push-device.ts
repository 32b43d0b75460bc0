import type { BrowserContext, CDPSession, Page, Worker } from 'playwright-core';

/** What a notification the service worker showed says and carries. */
export interface Shown {
  title: string;
  body: string;
  tag: string;
  data: { url: string; agent?: string; message_id?: string };
  actions: { action: string; title: string }[];
}

/**
 * A paired page's service worker as a push service reaches it: a push delivered through Chromium's DevTools protocol
 * (ServiceWorker.deliverPushMessage, since a test browser has no push service), the notification it showed, and a
 * tap on it handled by the worker's own click code. `token` is the device's, for registering a subscription the way
 * the app does with the browser's.
 */
export interface PushDevice {
  origin: string;
  cdp: CDPSession;
  sw: Worker;
  token: string;
  /** Delivers a push and waits for the notification it shows (by its tag). */
  deliver(data: string, tag: string): Promise<Shown>;
  /** The worker's own handling of a tap on the notification with this tag (action: a button, '' the body). */
  click(tag: string, action?: string): Promise<string>;
}

export async function pushDevice(context: BrowserContext, page: Page): Promise<PushDevice> {
  const origin = new URL(page.url()).origin;
  await context.grantPermissions(['notifications'], { origin });
  const cdp = await context.newCDPSession(page);
  const registered = new Promise<string>((resolve) =>
    cdp.on('ServiceWorker.workerRegistrationUpdated', (e) => {
      const r = e.registrations.find((x) => x.scopeURL === `${origin}/` && !x.isDeleted);
      if (r) resolve(r.registrationId);
    }),
  );
  await cdp.send('ServiceWorker.enable');
  const registrationId = await registered;
  await page.evaluate(() => (globalThis as any).navigator.serviceWorker.ready.then(() => undefined));
  const sw = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  const token = await page.evaluate(
    () =>
      new Promise<string>((resolve, reject) => {
        const req = (globalThis as any).indexedDB.open('leo');
        req.onsuccess = () => {
          const get = req.result.transaction('auth').objectStore('auth').get('device-token');
          get.onsuccess = () => resolve(get.result as string);
        };
        req.onerror = () => reject(req.error);
      }),
  );
  return {
    origin,
    cdp,
    sw,
    token,
    async deliver(data, tag) {
      // A deadline, not a count of polls: under CI's load a stopped worker can take seconds to start again. CI once
      // saw a push show nothing within 5 s (cause not found), so it is sent again every 10 s: the tag replaces it.
      const deadline = Date.now() + 30_000;
      let resendAt = 0;
      while (Date.now() < deadline) {
        if (Date.now() >= resendAt) {
          await cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId, data });
          resendAt = Date.now() + 10_000;
        }
        const shown = await page.evaluate(async (want) => {
          const reg = await (globalThis as any).navigator.serviceWorker.ready;
          const n = (await reg.getNotifications()).find((x: { tag: string }) => x.tag === want);
          return n ? { title: n.title, body: n.body, tag: n.tag, data: n.data, actions: n.actions } : null;
        }, tag);
        if (shown) return shown as Shown;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no notification ${tag} shown within 30 s`);
    },
    click: (tag, action = '') =>
      sw.evaluate(
        async ([tag, action]) => {
          const worker = globalThis as any;
          const n = (await worker.registration.getNotifications()).find((x: { tag: string }) => x.tag === tag);
          if (!n) throw new Error(`no notification ${tag}`);
          return worker.leo.onNotificationClick(n, action) as Promise<string>;
        },
        [tag, action] as const,
      ),
  };
}
