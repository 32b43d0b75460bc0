import type { TLSSocket } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { pinOfDer, pinRefusal } from './cert-pin.js';

/**
 * An undici dispatcher whose every connection must present the certificate `pin` names (cert-pin.ts). The CA and host
 * name checks are off on purpose: the pin, which the owner carried from the host in its join link, is what decides,
 * and it is stricter than either. It is checked once the handshake is done and before any request is written, so a
 * wrong certificate never sees a token. No session is resumed: each connection shows its certificate afresh.
 */
export function pinnedAgent(pin: string): Agent {
  const tls = buildConnector({ rejectUnauthorized: false, maxCachedSessions: 0 });
  return new Agent({
    connect: (opts, done) =>
      tls(opts, (err, socket) => {
        if (err) return done(err, null);
        const refused = pinRefusal(pin, pinOfDer((socket as TLSSocket).getPeerCertificate().raw));
        if (!refused) return done(null, socket);
        socket.destroy();
        // No `code`: the host client's error then carries these words (host-client.ts, reason).
        done(new Error(refused), null);
      }),
  });
}
