import type { Socket } from 'node:net';
import {
  evictForNewcomer,
  makeRoomForToken,
  perTokenLimit,
  type ConnectionHolder,
  type ConnectionView,
} from './connection-choice.js';

/** One open TCP connection as the cap keeps it. */
interface Tracked extends ConnectionView {
  socket: Socket;
}

/**
 * Bounds the TCP listener's open connections so a flood of them cannot use up the daemon's file descriptors (which
 * the unix socket, the database and the agents' terminals share), and so no token can hold them all. A connection is
 * counted from the moment it is accepted, before any TLS handshake. At the cap a newcomer pushes out a connection
 * (connection-choice.ts says which: one without a token, else an idle client's, else an idle one of the owner's);
 * only when every connection is busy with a token holder's request is the newcomer refused. Each token also holds at
 * most its share of connections: beyond it, its own longest-idle connection is closed, or its request refused.
 */
export class ConnectionCap {
  private readonly open = new Map<Socket, Tracked>();
  /** Orders connections by when they opened or last went idle. */
  private tick = 0;
  private evictedCount = 0;
  private refusedCount = 0;
  private refusedForTokenCount = 0;

  /** The limits are read at every connection, so a config reload applies to the next one. */
  constructor(private readonly limits: () => { max: number; perToken: number }) {}

  /**
   * Takes a new connection in. Returns false when it must be refused (every open connection is busy with a token
   * holder's request); otherwise a connection may have been destroyed to make room.
   */
  admit(socket: Socket): boolean {
    if (this.open.size >= this.limits().max) {
      const victim = evictForNewcomer(this.open.values());
      if (!victim) {
        this.refusedCount++;
        return false;
      }
      this.close(victim);
    }
    this.open.set(socket, { socket, holder: null, inFlight: 0, since: this.tick++ });
    socket.once('close', () => this.open.delete(socket));
    return true;
  }

  /**
   * A request arrived on the connection, with a valid token when `holder` is set. Returns false when that token
   * already holds its share of connections, all busy: the request is to be refused. Call `finished` when its response
   * is done.
   */
  begin(socket: Socket, holder: ConnectionHolder | null): boolean {
    const c = this.open.get(socket);
    if (!c) return true;
    if (holder && c.holder?.key !== holder.key) {
      const room = makeRoomForToken(this.open.values(), holder.key, this.perToken(), c);
      if ('refuse' in room) {
        this.refusedForTokenCount++;
        return false;
      }
      if ('evict' in room) this.close(room.evict);
      c.holder = holder;
    }
    c.inFlight++;
    return true;
  }

  /** The request begun on the connection has been answered: it is idle from now, unless another is in flight. */
  finished(socket: Socket): void {
    const c = this.open.get(socket);
    if (!c || c.inFlight === 0) return;
    c.inFlight--;
    c.since = this.tick++;
  }

  readout(): {
    open: number;
    unproven: number;
    max: number;
    maxPerToken: number;
    evicted: number;
    refused: number;
    refusedForToken: number;
  } {
    let unproven = 0;
    for (const c of this.open.values()) if (!c.holder) unproven++;
    return {
      open: this.open.size,
      unproven,
      max: this.limits().max,
      maxPerToken: this.perToken(),
      evicted: this.evictedCount,
      refused: this.refusedCount,
      refusedForToken: this.refusedForTokenCount,
    };
  }

  private perToken(): number {
    const { max, perToken } = this.limits();
    return perTokenLimit(perToken, max);
  }

  private close(c: Tracked): void {
    this.open.delete(c.socket);
    c.socket.destroy();
    this.evictedCount++;
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
