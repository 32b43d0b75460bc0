import { computed, signal } from '@preact/signals';
import type { HostEntry } from '../../wire/host.js';
import { parseAddress } from '../../wire/agent-address.js';
import type { FleetEvent } from '../api/events.js';

/**
 * The hosts a hub follows (issue 31), as its `/api/v1/state` lists them and its `host_status` events move them; null
 * on a daemon that is no hub (its state has no `hosts`), where the app shows one fleet as it always did.
 */
export const hosts = signal<readonly HostEntry[] | null>(null);

const byName = (a: HostEntry, b: HostEntry) => a.name.localeCompare(b.name);

export function applyHosts(list: readonly HostEntry[] | undefined): void {
  hosts.value = list ? [...list].sort(byName) : null;
}

/**
 * Applies a hub's host events. A status change patches its host at once; an event about a host this store does not
 * hold (just paired, or removed: its host_state then carries no agents) asks for the state again, which lists them.
 */
export function applyHostEvent(e: FleetEvent): 'state' | null {
  if (e.type !== 'host_status' && e.type !== 'host_state') return null;
  const known = hosts.value?.find((h) => h.name === e.data.host);
  if (!known) return 'state';
  if (e.type === 'host_state') return e.data.agents.length === 0 ? 'state' : null;
  const { error: _old, ...rest } = known;
  const { status, last_seen, error } = e.data;
  const next: HostEntry = { ...rest, status, last_seen, ...(error === null ? {} : { error }) };
  hosts.value = hosts.value!.map((h) => (h.name === next.name ? next : h));
  return null;
}

/** Drops a host at once (this device removed it); the next snapshot agrees. */
export function dropHost(name: string): void {
  if (hosts.value) hosts.value = hosts.value.filter((h) => h.name !== name);
}

/** The host an agent or thread name belongs to on a hub (`name@host`); null for this machine's. */
export const hostOf = (name: string): string | null => parseAddress(name)?.host ?? null;

/** How a time of the host's last word reads: the clock time today, else the date and time. */
export function seenAt(iso: string, now = new Date()): string {
  const d = new Date(iso);
  const time = d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return d.toDateString() === now.toDateString() ? time : `${d.toLocaleDateString()} ${time}`;
}

/** Why a host's agents cannot be acted on now, in words ("box is offline since 12:03"); null while it is online. */
export function hostDownReason(h: HostEntry, now = new Date()): string | null {
  if (h.status === 'online') return null;
  const since = h.last_seen ? ` since ${seenAt(h.last_seen, now)}` : '';
  return h.status === 'stale' ? `${h.name} has been silent${since}` : `${h.name} is offline${since}`;
}

/** For every host that is not online, why: its agents are shown greyed, their actions disabled with this reason. */
export const downHosts = computed<ReadonlyMap<string, string>>(() => {
  const down = new Map<string, string>();
  for (const h of hosts.value ?? []) {
    const why = hostDownReason(h);
    if (why) down.set(h.name, why);
  }
  return down;
});

/** Why `agent` (a name, `name@host` on a hub) cannot be acted on now; null when its machine is reachable. */
export function unreachable(agent: string): string | null {
  const host = hostOf(agent);
  return host === null ? null : (downHosts.value.get(host) ?? null);
}
