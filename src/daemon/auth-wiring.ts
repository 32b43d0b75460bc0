import type { FastifyInstance } from 'fastify';
import { AttemptLimiter } from '../auth/attempt-limiter.js';
import { PairingCodes } from '../auth/pairing-codes.js';
import { pairingRoutes } from '../auth/pairing-routes.js';
import { TokenConnections } from '../auth/token-connections.js';
import { tokenRoutes } from '../auth/token-routes.js';
import type { TokenStore } from '../auth/token-store.js';
import type { Clock } from '../core/clock.js';
import { viewerOf, type PresenceBoard } from '../push/presence-board.js';
import type { Database } from '../store/database.js';
import type { TokenRecord } from '../wire/tokens.js';
import type { Domain } from './domain.js';

export interface AuthWiringDeps {
  app: FastifyInstance;
  db: Database;
  clock: Clock;
  tokens: TokenStore;
  /** The devices' "thread on screen" reports: a revoked device's go with it. */
  presence: PresenceBoard;
  /** Leo Web's address, which a pairing link opens. */
  appUrl(): string;
}

export interface AuthWiring {
  domain: Domain;
  /** Ends what a revoked token holds: the hosts' peers are revoked through it too. */
  revoked(record: TokenRecord): void;
  /** Failed redemptions of one-time codes, a device's pairing and a hub's join alike. */
  attempts: AttemptLimiter;
}

/** The tokens' and pairing's routes; what a token holds open ends when it is revoked or its scope changes. */
export async function wireAuth(d: AuthWiringDeps): Promise<AuthWiring> {
  // After the access hook (registered by createServer), so every admitted request's principal is known here.
  const tokenRequests = new TokenConnections();
  d.app.addHook('onRequest', async (req, reply) => tokenRequests.track(req.principal, req.raw, reply.raw));
  // What a revoked token holds ends with it: its open requests (event streams included), its "thread on screen".
  const revoked = (record: TokenRecord) => {
    tokenRequests.end(record.id);
    d.presence.forget(viewerOf(record));
  };
  await d.app.register(tokenRoutes, {
    tokens: d.tokens,
    revoked,
    scopeChanged: (record) => tokenRequests.end(record.id),
  });
  const attempts = new AttemptLimiter(d.clock);
  await d.app.register(pairingRoutes, {
    codes: new PairingCodes(d.db, d.clock, d.tokens, 'device'),
    appUrl: d.appUrl,
    attempts,
  });
  return { domain: {}, revoked, attempts };
}
