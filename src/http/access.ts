import type { Principal, TokenKind } from '../wire/token-kinds.js';

/**
 * What a route admits. Every route declares one (the server refuses to register a route without it), which is what
 * lets the access-matrix test enumerate the whole route table.
 */
export interface RouteAccess {
  /** Token kinds accepted on TCP; 'public' needs none. The unix socket admits everyone. */
  tokens: readonly TokenKind[] | 'public';
  /** Served on the unix socket only; TCP answers 404 as if the route did not exist. */
  socketOnly?: boolean;
  /** API-client tokens are admitted only when issued with can_post. */
  clientMustPost?: boolean;
  /** Device tokens are admitted only when granted the fleet scope. */
  deviceMustRunFleet?: boolean;
}

/**
 * A `peer` is a hub this daemon was paired with as a host (issue 31): it does on the agents whatever the operator does
 * (reads, chat, answers, fleet writes, terminal, changes, tasks) and manages nothing (tokens, devices, pairing, push,
 * config writes, the daemon itself, metrics).
 */
export const Access = {
  public: { tokens: 'public' },
  operator: { tokens: ['operator'] },
  /** The owner's own apps: push subscriptions and config edits, which a peer hub does not manage here. */
  operatorOrDevice: { tokens: ['operator', 'device'] },
  /** Working on agents as their owner: chat reads and answers, terminal, changes, tasks, one agent's appearance. */
  onAgents: { tokens: ['operator', 'device', 'peer'] },
  /** The operator's own agent routes that no device holds (a message from the operator, chat sessions). */
  operatorOrPeer: { tokens: ['operator', 'peer'] },
  /**
   * Fleet writes — spawn, environments, template, start/stop/restart/reset, rename, remove, running a task: the spec
   * reserves them for the operator; a device holds them only when paired with the scope, a peer hub always.
   */
  fleet: { tokens: ['operator', 'device', 'peer'], deviceMustRunFleet: true },
  /**
   * The owner's management from their phone: listing devices and granting the fleet scope, and a hub's hosts (pairing
   * one from its join link, removing one, moving an agent between them). The operator's, and a device's that holds
   * the fleet scope.
   */
  deviceScopes: { tokens: ['operator', 'device'], deviceMustRunFleet: true },
  /** Read-only observers: dashboards hold API-client tokens. */
  readers: { tokens: ['operator', 'device', 'client', 'peer'] },
  anyToken: { tokens: ['operator', 'device', 'client', 'agent', 'peer'] },
  agent: { tokens: ['agent'] },
  /** A peer hub on its own token (revoking itself). */
  peer: { tokens: ['peer'] },
  socketOnly: { tokens: [], socketOnly: true },
} as const satisfies Record<string, RouteAccess>;

export type AccessDecision =
  | { allowed: true; principal: Principal }
  | {
      allowed: false;
      status: 401 | 403 | 404;
      error: string;
      code: string;
      /** The scope the caller lacks, for a client that hides what it may not do. */
      details?: { scope: 'fleet' };
    };

/** `details.scope` names what is missing for a program; the words are for a person who called the route. */
const FLEET_REFUSAL = {
  allowed: false,
  status: 403,
  error:
    'this device lacks the fleet scope: spawning, stopping or changing agents and running tasks need it ' +
    '(grant it with `leo device fleet <name> on`, or pair with `leo device pair <name> --fleet`)',
  code: 'forbidden',
  details: { scope: 'fleet' },
} as const satisfies AccessDecision;

/** Pure: decides a request from how it arrived, the route's declaration and the bearer token's owner. */
export function decideAccess(input: {
  viaSocket: boolean;
  access: RouteAccess;
  authorization: string | undefined;
  identify(token: string): Principal | null;
}): AccessDecision {
  const { viaSocket, access } = input;
  if (viaSocket) return { allowed: true, principal: { kind: 'socket' } };
  if (access.socketOnly) return { allowed: false, status: 404, error: 'not found', code: 'not_found' };
  if (access.tokens === 'public') return { allowed: true, principal: { kind: 'anonymous' } };
  const m = /^Bearer\s+(\S+)\s*$/i.exec(input.authorization ?? '');
  if (!m) {
    const error = input.authorization
      ? 'malformed Authorization header (expected "Bearer <token>")'
      : 'missing bearer token';
    return { allowed: false, status: 401, error, code: 'unauthorized' };
  }
  const principal = input.identify(m[1]!);
  if (!principal) return { allowed: false, status: 401, error: 'invalid or revoked token', code: 'unauthorized' };
  if (principal.kind === 'socket' || principal.kind === 'anonymous' || !access.tokens.includes(principal.kind))
    return {
      allowed: false,
      status: 403,
      error: `this route does not accept ${principal.kind} tokens`,
      code: 'forbidden',
    };
  if (access.clientMustPost && principal.kind === 'client' && !principal.canPost)
    return { allowed: false, status: 403, error: 'this API client was not granted can_post', code: 'forbidden' };
  if (access.deviceMustRunFleet && principal.kind === 'device' && !principal.fleet) return FLEET_REFUSAL;
  return { allowed: true, principal };
}
