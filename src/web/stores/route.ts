import { signal } from '@preact/signals';

/**
 * Which screen the address names: `#/t/<agent>` is that agent's thread, `#/t/<agent>/m/<id>` the same thread opened at
 * one message (the inbox and push notifications link there), `#/inbox` the inbox, `#/new` a new agent, `#/a/<agent>`
 * an agent's controls, `#/settings` this device's push settings, anything else the fleet.
 */
export type Route =
  | { screen: 'fleet' }
  | { screen: 'inbox' }
  | { screen: 'new' }
  | { screen: 'settings' }
  | { screen: 'agent'; agent: string }
  | { screen: 'thread'; agent: string; message?: string };

export function parseRoute(hash: string): Route {
  if (hash === '#/inbox') return { screen: 'inbox' };
  if (hash === '#/new') return { screen: 'new' };
  if (hash === '#/settings') return { screen: 'settings' };
  const manage = /^#\/a\/([^/]+)$/.exec(hash);
  if (manage) return { screen: 'agent', agent: decodeURIComponent(manage[1]!) };
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
export const agentControlsHref = (agent: string) => `#/a/${encodeURIComponent(agent)}`;
export const SETTINGS_HREF = '#/settings';
