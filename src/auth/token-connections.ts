import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Principal } from '../wire/token-kinds.js';

/**
 * The requests in flight on each paired device's and API client's token, so that revoking the token ends them at
 * once: an event stream, an upload still arriving, a held request. A token is checked when a request arrives, so
 * without this a stream opened before revocation kept receiving after it (issue 20). Only requests still open are
 * held: a kept-alive connection may carry another caller's request next (one client pool serving several tokens), and
 * that one must not be cut; the revoked token's own next request is refused by the access check.
 */
export class TokenConnections {
  private readonly byToken = new Map<string, Set<IncomingMessage>>();

  /** Called for every admitted request; the operator, agent, socket and public callers hold no revocable token. */
  track(principal: Principal | null, req: IncomingMessage, res: ServerResponse): void {
    if (!principal || !('id' in principal)) return;
    const id = principal.id;
    let held = this.byToken.get(id);
    if (!held) this.byToken.set(id, (held = new Set()));
    held.add(req);
    const set = held;
    // 'close' fires when the response is done or its connection went away, a stream's as it ends.
    res.once('close', () => {
      set.delete(req);
      if (set.size === 0 && this.byToken.get(id) === set) this.byToken.delete(id);
    });
  }

  /** Closes the connection of every request still open on the token; answers how many. */
  end(tokenId: string): number {
    const held = this.byToken.get(tokenId);
    if (!held) return 0;
    this.byToken.delete(tokenId);
    for (const req of held) req.socket.destroy();
    return held.size;
  }
}
