import { z } from 'zod';

/**
 * How a hub names an agent of a host it follows (issue 31, Addressing): `name@host`, where `host` is the key under
 * the hub's `client.hosts`. Local agents keep their bare names, so a single machine's addresses never change.
 */
const ADDRESS = /^([a-zA-Z0-9][a-zA-Z0-9_-]{0,62})(?:@([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?))?$/;

export const AgentAddress = z.string().regex(ADDRESS, "an agent's name, or name@host for an agent of another machine");

export interface ParsedAddress {
  name: string;
  /** Null for an agent of this daemon. */
  host: string | null;
}

/** Splits `name@host`; null for a string that is no address at all. */
export function parseAddress(address: string): ParsedAddress | null {
  const m = ADDRESS.exec(address);
  return m ? { name: m[1]!, host: m[2] ?? null } : null;
}

/** The address a hub shows for `name` on `host` (null: its own agent). */
export function addressOf(name: string, host: string | null): string {
  return host === null ? name : `${name}@${host}`;
}
