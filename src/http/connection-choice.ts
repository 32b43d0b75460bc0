import type { Principal } from '../wire/token-kinds.js';

/**
 * Who a connection last carried a valid token for. `client` tokens (dashboards, API clients, the agents' token) give
 * way before `owner` ones (the operator's, paired devices', peer hubs'): a client must never keep the owner out.
 */
export interface ConnectionHolder {
  key: string;
  tier: 'client' | 'owner';
}

/** What the choice needs to know of one open TCP connection. */
export interface ConnectionView {
  /** null until the connection carries a request with a valid token: anyone may have opened it. */
  holder: ConnectionHolder | null;
  /** Requests in flight on it; a busy connection is never closed to make room. */
  inFlight: number;
  /** A counter value: when it opened, or last finished a request. Lower is older. */
  since: number;
}

/** The holder a request's principal makes of its connection; null for callers without a token. */
export function holderOf(p: Principal | null): ConnectionHolder | null {
  if (!p || p.kind === 'socket' || p.kind === 'anonymous') return null;
  // A peer hub carries its owner's phone: it gives way no sooner than the phone itself would.
  if (p.kind === 'device' || p.kind === 'peer') return { key: `${p.kind}:${p.id}`, tier: 'owner' };
  if (p.kind === 'client') return { key: `client:${p.id}`, tier: 'client' };
  return { key: p.kind, tier: p.kind === 'operator' ? 'owner' : 'client' };
}

/**
 * The connection a newcomer at the cap pushes out, or null to refuse it. First the oldest without a token (it may be
 * anyone's), then the longest-idle keep-alive connection of a client, then the longest-idle of the owner. Pure.
 */
export function evictForNewcomer<C extends ConnectionView>(open: Iterable<C>): C | null {
  let unproven: C | null = null;
  let idleClient: C | null = null;
  let idleOwner: C | null = null;
  const older = (a: C | null, b: C) => !a || b.since < a.since;
  for (const c of open) {
    if (!c.holder) {
      if (older(unproven, c)) unproven = c;
    } else if (c.inFlight > 0) {
      continue;
    } else if (c.holder.tier === 'client') {
      if (older(idleClient, c)) idleClient = c;
    } else if (older(idleOwner, c)) idleOwner = c;
  }
  return unproven ?? idleClient ?? idleOwner;
}

/**
 * Whether one more connection for `key` fits its share, and which of its own idle connections (the longest idle)
 * makes room when not. `refuse` when the token's connections are all busy. Pure.
 */
export function makeRoomForToken<C extends ConnectionView>(
  open: Iterable<C>,
  key: string,
  limit: number,
  self: C,
): { fits: true } | { fits: false; evict: C } | { fits: false; refuse: true } {
  let held = 0;
  let idle: C | null = null;
  for (const c of open) {
    if (c === self || c.holder?.key !== key) continue;
    held++;
    if (c.inFlight === 0 && (!idle || c.since < idle.since)) idle = c;
  }
  if (held < limit) return { fits: true };
  return idle ? { fits: false, evict: idle } : { fits: false, refuse: true };
}

/** One token holds at most half of the cap, however web.max_connections_per_token is set. Pure. */
export function perTokenLimit(configured: number, cap: number): number {
  return Math.max(1, Math.min(configured, Math.floor(cap / 2)));
}
