import { signal } from '@preact/signals';

/**
 * Which screen the address names: `#/t/<agent>` is that agent's thread, `#/t/<agent>/m/<id>` the same thread opened at
 * one message (the inbox and push notifications link there), `#/inbox` the inbox, anything else the fleet.
 */
export type Route = { screen: 'fleet' } | { screen: 'inbox' } | { screen: 'thread'; agent: string; message?: string };

export function parseRoute(hash: string): Route {
  if (hash === '#/inbox') return { screen: 'inbox' };
  const m = /^#\/t\/([^/]+)(?:\/m\/([^/]+))?$/.exec(hash);
  if (!m) return { screen: 'fleet' };
  const agent = decodeURIComponent(m[1]!);
  return m[2] ? { screen: 'thread', agent, message: decodeURIComponent(m[2]) } : { screen: 'thread', agent };
}

export const route = signal<Route>(parseRoute(location.hash));
// A hash change is a history entry, so the browser's back button returns to where the owner came from.
window.addEventListener('hashchange', () => (route.value = parseRoute(location.hash)));

export const threadHref = (agent: string, message?: string) =>
  `#/t/${encodeURIComponent(agent)}${message ? `/m/${encodeURIComponent(message)}` : ''}`;
export const INBOX_HREF = '#/inbox';
