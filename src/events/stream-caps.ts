import type { Principal } from '../wire/token-kinds.js';
import { LeoError } from '../core/leo-error.js';

/** How long a caller refused for the global stream cap is told to wait. */
const FULL_RETRY_AFTER_S = 10;

/**
 * Bounds the long-lived streams token holders keep open (/api/v1/events, an agent's terminal stream, the sessions
 * endpoint's SSE and /ws): in all and per token, so one token cannot take every stream (or every file descriptor) for
 * itself. The socket's streams are the owner's own and not counted.
 */
export class StreamCaps {
  private readonly perToken = new Map<string, number>();
  private total = 0;
  private refusedCount = 0;

  /** Read at every subscription, so a config reload applies to the next one. */
  constructor(private readonly limits: () => { total: number; perToken: number }) {}

  /**
   * Counts a new stream for `principal` until the returned release is called; throws 429 too_many_streams when its
   * token has its maximum open, 503 too_many_streams when every stream is taken.
   */
  admit(principal: Principal | null): () => void {
    const key = tokenKey(principal);
    if (key === null) return () => {};
    const { total, perToken } = this.limits();
    const mine = this.perToken.get(key) ?? 0;
    if (mine >= perToken) {
      this.refusedCount++;
      throw new LeoError(429, `this token already has ${perToken} streams open: close one first`, 'too_many_streams', {
        scope: 'token',
        limit: perToken,
      });
    }
    if (this.total >= total) {
      this.refusedCount++;
      throw new LeoError(
        503,
        `the daemon already serves ${total} streams: try again shortly`,
        'too_many_streams',
        { scope: 'global', limit: total },
        FULL_RETRY_AFTER_S,
      );
    }
    this.perToken.set(key, mine + 1);
    this.total++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.total--;
      const left = (this.perToken.get(key) ?? 1) - 1;
      if (left > 0) this.perToken.set(key, left);
      else this.perToken.delete(key);
    };
  }

  /** admit(), released when `conn` (a response or a socket) closes: a stream counts for as long as it is open. */
  holdOpen(principal: Principal | null, conn: { once(event: 'close', listener: () => void): unknown }): void {
    conn.once('close', this.admit(principal));
  }

  readout(): { open: number; max: number; maxPerToken: number; refused: number } {
    const { total, perToken } = this.limits();
    return { open: this.total, max: total, maxPerToken: perToken, refused: this.refusedCount };
  }
}

/** Which token a stream counts against; null for the socket, whose streams are not capped. */
function tokenKey(p: Principal | null): string | null {
  if (!p || p.kind === 'socket') return null;
  if (p.kind === 'device' || p.kind === 'client' || p.kind === 'peer') return `${p.kind}:${p.id}`;
  return p.kind;
}
