import type { FastifyInstance } from 'fastify';
import { PairingCodes } from '../auth/pairing-codes.js';
import { pairingRoutes } from '../auth/pairing-routes.js';
import { TokenConnections } from '../auth/token-connections.js';
import { tokenRoutes } from '../auth/token-routes.js';
import type { TokenStore } from '../auth/token-store.js';
import type { Clock } from '../core/clock.js';
import { viewerOf, type PresenceBoard } from '../push/presence-board.js';
import type { Database } from '../store/database.js';
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

/** The tokens' and pairing's routes; what a token holds open ends when it is revoked or its scope changes. */
export async function wireAuth(d: AuthWiringDeps): Promise<Domain> {
  // After the access hook (registered by createServer), so every admitted request's principal is known here.
  const tokenRequests = new TokenConnections();
  d.app.addHook('onRequest', async (req, reply) => tokenRequests.track(req.principal, req.raw, reply.raw));
  await d.app.register(tokenRoutes, {
    tokens: d.tokens,
    // What a revoked token holds ends with it: its open requests (event streams included), its "thread on screen".
    revoked: (record) => {
      tokenRequests.end(record.id);
      d.presence.forget(viewerOf(record));
    },
    scopeChanged: (record) => tokenRequests.end(record.id),
  });
  await d.app.register(pairingRoutes, { codes: new PairingCodes(d.db, d.clock, d.tokens), appUrl: d.appUrl });
  return {};
}
