import type { Socket } from 'node:net';

/**
 * Bounds the TCP listener's open connections so a flood of them cannot use up the daemon's file descriptors (which
 * the unix socket, the database and the agents' terminals share). A connection counts as *proven* once it has carried
 * a request with a valid token; until then anyone may have opened it. At the cap a newcomer pushes out the oldest
 * unproven connection, so idle connections from a client without a token cannot keep a token holder out: the owner's
 * next request still finds a place. Only when every connection is proven is the newcomer refused.
 */
export class ConnectionCap {
  private readonly open = new Set<Socket>();
  /** Insertion order is age: the first is the oldest, the one pushed out first. */
  private readonly unproven = new Set<Socket>();
  private evictedCount = 0;
  private refusedCount = 0;

  /** `max` is read at every connection, so a config reload applies to the next one. */
  constructor(private readonly max: () => number) {}

  /**
   * Takes a new connection in. Returns false when it must be refused (every open connection is proven); otherwise
   * the oldest unproven connection may have been destroyed to make room.
   */
  admit(socket: Socket): boolean {
    if (this.open.size >= this.max()) {
      const oldest = this.unproven.values().next().value;
      if (!oldest) {
        this.refusedCount++;
        return false;
      }
      this.forget(oldest);
      oldest.destroy();
      this.evictedCount++;
    }
    this.open.add(socket);
    this.unproven.add(socket);
    socket.once('close', () => this.forget(socket));
    return true;
  }

  /** The connection carried an authenticated request: it is no longer pushed out for a newcomer. */
  prove(socket: Socket): void {
    this.unproven.delete(socket);
  }

  readout(): { open: number; unproven: number; max: number; evicted: number; refused: number } {
    return {
      open: this.open.size,
      unproven: this.unproven.size,
      max: this.max(),
      evicted: this.evictedCount,
      refused: this.refusedCount,
    };
  }

  private forget(socket: Socket): void {
    this.open.delete(socket);
    this.unproven.delete(socket);
  }
}

/**
 * File descriptors kept for everything but TCP clients: the unix socket's callers (the CLI, hooks held open), the
 * database, tmux's control client, worker threads, child processes.
 */
export const FD_RESERVE = 256;

/** The TCP connection cap the open-file limit leaves room for: web.max_connections, or less. Pure. */
export function connectionCeiling(configured: number, openFiles: number | null): number {
  if (openFiles === null) return configured;
  return Math.max(16, Math.min(configured, openFiles - FD_RESERVE));
}
