import { computed, signal } from '@preact/signals';
import type { HostEntry } from '../../wire/host.js';
import { fleetRows, type FleetRow } from './fleet.js';
import { hostOf, hosts } from './hosts.js';

/** The fleet's rows under one machine: this one (`host` null) or a followed host with its entry. */
export interface FleetGroup {
  host: HostEntry | null;
  rows: FleetRow[];
}

/** Which machine the fleet shows on a hub: one host's name, THIS_MACHINE, or null for all of them. */
export const hostFilter = signal<string | null>(null);
export const THIS_MACHINE = '';

const rowHost = (r: FleetRow) => r.agent?.host ?? hostOf(r.name);

/**
 * The fleet by machine on a hub: this machine first, then each host by name (a host with no agents too, so its badge
 * shows), in fleetRows' order within each; the filter keeps one of them. Without hosts, one group with no header.
 */
export const fleetGroups = computed<FleetGroup[]>(() => {
  const rows = fleetRows.value;
  const list = hosts.value;
  if (!list) return [{ host: null, rows }];
  const groups: FleetGroup[] = [
    { host: null, rows: rows.filter((r) => rowHost(r) === null) },
    ...list.map((host) => ({ host, rows: rows.filter((r) => rowHost(r) === host.name) })),
  ];
  const only = hostFilter.value;
  const kept = groups.filter((g) => (g.host?.name ?? THIS_MACHINE) === only);
  // A filter naming a host since removed shows them all again.
  return kept.length ? kept : groups;
});

/** The rows as the fleet shows them, top to bottom: the order j/k walk. */
export const shownRows = computed(() => fleetGroups.value.flatMap((g) => g.rows));
