import { signal } from '@preact/signals';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);
const KEY = 'leo.http-warning-dismissed';

/**
 * Plain HTTP to another machine is no secure context: push, the service worker and installing the app need HTTPS.
 * Loopback is a secure context over plain HTTP, so it gets no warning. It sits at the top of the fleet (the first
 * screen, and the column beside a thread on desktop), never over a thread's composer.
 */
export const plainHttpRemote = (loc: Pick<Location, 'protocol' | 'hostname'>): boolean =>
  loc.protocol === 'http:' && !LOOPBACK.has(loc.hostname);

const dismissed = signal(localStorage.getItem(KEY) === '1');

export function HttpWarning() {
  if (dismissed.value || !plainHttpRemote(location)) return null;
  return (
    <div class="http-warning" role="note" data-http-warning>
      <p>
        This page came over plain HTTP, so push notifications and installing the app are off: they need HTTPS. Run{' '}
        <code>leo remote &lt;host&gt;</code> on the machine running Leo to set HTTPS up (Tailscale Serve or a proxy).
      </p>
      <button
        type="button"
        aria-label="Dismiss"
        onClick={() => {
          localStorage.setItem(KEY, '1');
          dismissed.value = true;
        }}
      >
        ×
      </button>
    </div>
  );
}
