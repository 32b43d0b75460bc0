import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AttemptLimiter } from '../auth/attempt-limiter.js';
import type { PairingCodes } from '../auth/pairing-codes.js';
import type { TokenStore } from '../auth/token-store.js';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import type { Logger } from '../core/logger.js';
import { HostInfo, HostInvite, HostInviteBody, JoinBody, Joined } from '../wire/host.js';
import type { TokenRecord } from '../wire/tokens.js';
import { joinLink } from './join-link.js';

export interface HostRoutesDeps {
  info(): HostInfo;
  /** One-time codes of the `peer` kind. */
  codes: PairingCodes;
  attempts: AttemptLimiter;
  tokens: TokenStore;
  /** Where a hub reaches this daemon when the invite names no URL. */
  defaultUrl(): string;
  /** The pin of the certificate this daemon serves when `url` reaches its own TLS listener (cert-pin.ts), else none. */
  pinFor(url: string): string | undefined;
  /** Ends what a revoked token still holds. */
  revoked(record: TokenRecord): void;
  logger: Logger;
}

/**
 * This daemon as a host (issue 31): who it is, and how a hub joins it. The owner asks for an invite here (operator or
 * socket), carries the link to the hub, and the hub redeems the code for a peer token. The redemption is public —
 * the code authenticates it — and shares the device pairing's limit on failed attempts. A peer may revoke its own
 * token, which is how a hub removing the host tells it so.
 */
export const hostRoutes: FastifyPluginAsyncZod<HostRoutesDeps> = async (app, deps) => {
  app.get('/api/v1/host', { config: { access: Access.readers }, schema: { response: { 200: okOf(HostInfo) } } }, () =>
    ok(deps.info()),
  );

  const inviting = {
    config: { access: Access.operator },
    schema: { body: HostInviteBody, response: { 201: okOf(HostInvite) } },
  };
  app.post('/api/v1/host/invites', inviting, async (req, reply) => {
    const url = (req.body.url ?? deps.defaultUrl()).replace(/\/+$/, '');
    const issued = deps.codes.issue(req.body.hub);
    const pin = deps.pinFor(url);
    const link = joinLink(url, issued.code, pin);
    return reply
      .code(201)
      .send(ok({ hub: issued.name, link, url, ...(pin ? { pin } : {}), expires_at: issued.expires_at }));
  });

  const joining = { config: { access: Access.public }, schema: { body: JoinBody, response: { 201: okOf(Joined) } } };
  app.post('/api/v1/host/join', joining, async (req, reply) => {
    const joined = deps.attempts.attempt(() => deps.codes.redeem(req.body.code));
    if (!joined) throw new HttpError(401, 'this join code is unknown, already used or expired', 'bad_join_code');
    deps.logger.info({ peer: joined.record.name, hub: req.body.hub }, 'a hub joined this host');
    return reply.code(201).send(ok({ token: joined.token, host: deps.info() }));
  });

  const revoking = {
    config: { access: Access.peer },
    schema: { response: { 200: okOf(z.object({ revoked: z.literal(true) })) } },
  };
  app.delete('/api/v1/host/peer', revoking, async (req, reply) => {
    const p = req.principal;
    // The socket is admitted everywhere, and holds no peer token to revoke.
    if (p?.kind !== 'peer')
      throw new HttpError(
        400,
        'only a peer token revokes itself here; on the host, use `leo host revoke`',
        'not_a_peer',
      );
    const record = deps.tokens.revoke('peer', p.id);
    if (!record) throw new HttpError(401, 'invalid or revoked token', 'unauthorized');
    // Once this answer is out: ending the token's connections first would cut it.
    reply.raw.once('close', () => deps.revoked(record));
    deps.logger.info({ peer: record.name }, 'a hub revoked its peer token');
    return ok({ revoked: true as const });
  });
};
