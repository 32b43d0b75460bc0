import { z } from 'zod';
import type { Principal } from './token-kinds.js';

/**
 * Who a request's token belongs to and what it may do beyond reading: `GET /api/v1/me`. Leo Web reads it to show only
 * the controls its device may use. fleet: spawn, environments, template, start/stop/restart/reset, rename, remove and
 * running a task (Access.fleet); can_post: an API client's chat posting.
 */
export const Caller = z.object({
  kind: z.enum(['operator', 'device', 'client', 'agent', 'peer', 'socket']),
  id: z.string().optional(),
  name: z.string().optional(),
  fleet: z.boolean(),
  can_post: z.boolean(),
});
export type Caller = z.infer<typeof Caller>;

/** Pure: the caller a token route admitted. The operator and the socket hold every right; an agent none of these. */
export function callerOf(p: Exclude<Principal, { kind: 'anonymous' }>): Caller {
  switch (p.kind) {
    case 'device':
      return { kind: 'device', id: p.id, name: p.name, fleet: p.fleet, can_post: true };
    case 'client':
      return { kind: 'client', id: p.id, name: p.name, fleet: false, can_post: p.canPost };
    case 'agent':
      return { kind: 'agent', fleet: false, can_post: false };
    // A hub does on this host's agents what its owner may.
    case 'peer':
      return { kind: 'peer', id: p.id, name: p.name, fleet: true, can_post: true };
    case 'operator':
    case 'socket':
      return { kind: p.kind, fleet: true, can_post: true };
  }
}
