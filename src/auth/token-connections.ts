import type { Socket } from 'node:net';
import type { Principal } from './token-kinds.js';

/**
 * The TCP connections each paired device and API client has presented its token on, so that revoking the token ends
 * them at once: an event stream, an upload still arriving, a kept-alive connection. A token is checked when a request
 * arrives, so without this a stream opened before revocation kept receiving after it (issue 20).
 */
export class TokenConnections {
  private readonly byToken = new Map<string, Set<Socket>>();

  /** Called for every admitted request; the operator, agent, socket and public callers hold no revocable token. */
  track(principal: Principal | null, socket: Socket): void {
    if (!principal || !('id' in principal)) return;
    const id = principal.id;
    let held = this.byToken.get(id);
    if (!held) this.byToken.set(id, (held = new Set()));
    if (held.has(socket)) return;
    held.add(socket);
    const set = held;
    socket.once('close', () => {
      set.delete(socket);
      if (set.size === 0 && this.byToken.get(id) === set) this.byToken.delete(id);
    });
  }

  /** Closes every connection the token was used on; answers how many. */
  end(tokenId: string): number {
    const held = this.byToken.get(tokenId);
    if (!held) return 0;
    this.byToken.delete(tokenId);
    for (const socket of held) socket.destroy();
    return held.size;
  }
}
