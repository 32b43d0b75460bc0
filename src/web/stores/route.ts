import { signal } from '@preact/signals';

/** Which screen the address names: `#/t/<agent>` is that agent's thread, anything else the fleet. */
export type Route = { screen: 'fleet' } | { screen: 'thread'; agent: string };

function parse(hash: string): Route {
  const m = /^#\/t\/([^/]+)$/.exec(hash);
  return m ? { screen: 'thread', agent: decodeURIComponent(m[1]!) } : { screen: 'fleet' };
}

export const route = signal<Route>(parse(location.hash));
// A hash change is a history entry, so the browser's back button returns to the fleet.
window.addEventListener('hashchange', () => (route.value = parse(location.hash)));

export const threadHref = (agent: string) => `#/t/${encodeURIComponent(agent)}`;
