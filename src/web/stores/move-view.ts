import { computed } from '@preact/signals';
import { addressOf, parseAddress } from '../../wire/agent-address.js';
import type { MoveOperation } from '../../wire/move.js';
import { hosts } from './hosts.js';

/** The machines a hub follows, by name: a move's `to` that is none of them is the hub itself. */
export const hostNames = computed<readonly string[]>(() => (hosts.value ?? []).map((h) => h.name));

/** An agent's address once it is at `to` under `name`: `name@to` on a followed host, the bare `name` on the hub. */
export const arrivalAddress = (name: string, to: string, names: readonly string[]): string =>
  addressOf(name, names.includes(to) ? to : null);

/** A move's target as the app names it: a host by its name, the hub as "this machine". */
export const machineName = (to: string, names: readonly string[]): string => (names.includes(to) ? to : 'this machine');

/** Where a dormant record's agent went: its new address, and the machine's name. */
export function movedAway(agent: { name: string; moved_to?: string; moved_as?: string }, names: readonly string[]) {
  if (!agent.moved_to) return null;
  const name = agent.moved_as ?? parseAddress(agent.name)?.name ?? agent.name;
  return { address: arrivalAddress(name, agent.moved_to, names), machine: machineName(agent.moved_to, names) };
}

/** The step an operation is at, in words. */
export function stepWords(op: MoveOperation, machine: string): string {
  switch (op.step) {
    case 'park':
      return 'Parking';
    case 'ship':
      return 'Shipping';
    case 'spawn':
      return `Starting on ${machine}`;
    case 'mark':
      return 'Finishing';
    case 'done':
      return 'Done';
    case 'failed':
      return 'Failed';
  }
}
