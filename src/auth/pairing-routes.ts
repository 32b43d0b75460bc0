import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import type { AttemptLimiter } from './attempt-limiter.js';
import { pairingLink } from './pairing-link.js';
import type { PairingCodes } from './pairing-codes.js';
import { TokenName, TokenRecord } from '../wire/tokens.js';

/** fleet: the device is granted fleet writes (spawn, environments, lifecycle, task runs); off unless asked for. */
export const CreatePairingCodeBody = z.strictObject({ name: TokenName, fleet: z.boolean().default(false) });
export const PairBody = z.strictObject({ code: z.string().min(1).max(128) });
/** A one-time code for a device named `name`, and the app link that carries it. */
export const PairingCode = z.object({
  code: z.string(),
  name: z.string(),
  fleet: z.boolean(),
  expires_at: z.string(),
  url: z.string(),
});
export const Paired = z.object({ device: TokenRecord, token: z.string() });

export interface PairingRoutesDeps {
  codes: PairingCodes;
  /** The app's origin, e.g. http://127.0.0.1:8484: the link a code is handed out in points there. */
  appUrl(): string;
  /** Failed redemptions, shared with a host's join codes: past ten a minute, the daemon answers 429 for a while. */
  attempts: AttemptLimiter;
}

/**
 * Pairing a browser: the operator asks for a one-time code (`leo device pair`, `leo open`), the app trades it for a
 * device token. The trade is public (the caller has nothing else yet); the code is what authenticates it.
 */
export const pairingRoutes: FastifyPluginAsyncZod<PairingRoutesDeps> = async (app, { codes, appUrl, attempts }) => {
  const pairingCode = {
    config: { access: Access.operator },
    schema: { body: CreatePairingCodeBody, response: { 201: okOf(PairingCode) } },
  };
  app.post('/api/v1/devices/pairing-codes', pairingCode, async (req, reply) => {
    const { name, fleet } = req.body;
    const issued = codes.issue(name, fleet);
    return reply.code(201).send(ok({ ...issued, url: pairingLink(appUrl(), issued.code) }));
  });

  const pair = { config: { access: Access.public }, schema: { body: PairBody, response: { 201: okOf(Paired) } } };
  app.post('/api/v1/pair', pair, async (req, reply) => {
    const paired = attempts.attempt(() => codes.redeem(req.body.code));
    if (!paired) throw new HttpError(401, 'this pairing code is unknown, already used or expired', 'bad_pairing_code');
    return reply.code(201).send(ok({ device: paired.record, token: paired.token }));
  });
};
