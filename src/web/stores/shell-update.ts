import { signal } from '@preact/signals';

/**
 * A new build's service worker, installed and waiting (sw/sw.ts): the app offers "New version — Reload" rather than
 * swap the shell under a page in use. Reload asks the worker to take over, and the page reloads once it has.
 */
export const waitingWorker = signal<ServiceWorker | null>(null);

/** Follows the registration for a new worker. One installed while another is active is a new version of the shell. */
export function followUpdates(reg: ServiceWorkerRegistration): void {
  const offer = (w: ServiceWorker | null) => {
    if (w && reg.active) waitingWorker.value = w;
  };
  const watch = (w: ServiceWorker | null) =>
    w?.addEventListener('statechange', () => w.state === 'installed' && offer(w));
  offer(reg.waiting);
  watch(reg.installing);
  reg.addEventListener('updatefound', () => watch(reg.installing));
}

/** Asks the browser whether /sw.js changed (the daemon may have been upgraded while this page stayed open). */
export function checkForUpdate(): void {
  if ('serviceWorker' in navigator)
    void navigator.serviceWorker.getRegistration().then((reg) => reg?.update().catch(() => undefined));
}

export function reloadToUpdate(): void {
  const w = waitingWorker.value;
  if (!w) return;
  // Another tab's Reload may have activated it already: this page is still the old shell, and only needs reloading.
  if (w.state === 'activating' || w.state === 'activated') return location.reload();
  navigator.serviceWorker.addEventListener('controllerchange', () => location.reload(), { once: true });
  w.postMessage({ type: 'leo.update' });
}
