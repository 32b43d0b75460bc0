import { api } from './auth.js';

/**
 * Tells the daemon which thread is on this screen, so its messages do not push here meanwhile (a report lasts 90 s:
 * PRESENCE_TTL_MS). While the thread is open and the page visible the report is renewed every RENEW_MS; a hidden page
 * or leaving the thread withdraws it at once, so pushes resume as soon as nobody is looking.
 */
export const RENEW_MS = 60_000;

/** Starts reporting `agent`'s thread as viewed; the returned function stops (and withdraws the report). */
export function watchPresence(agent: string, renewMs = RENEW_MS): () => void {
  let timer: ReturnType<typeof setInterval> | null = null;
  const report = (viewing: boolean) => void api.presence(agent, viewing).catch(() => undefined);
  const start = () => {
    if (timer !== null || document.visibilityState !== 'visible') return;
    report(true);
    timer = setInterval(() => report(true), renewMs);
  };
  const stop = () => {
    if (timer === null) return;
    clearInterval(timer);
    timer = null;
    report(false);
  };
  const onVisibility = () => (document.visibilityState === 'visible' ? start() : stop());
  document.addEventListener('visibilitychange', onVisibility);
  start();
  return () => {
    document.removeEventListener('visibilitychange', onVisibility);
    stop();
  };
}
