/**
 * What the fault proxy does with the bytes crossing it, apart from its sockets. A TCP stream cannot lose bytes and
 * stay a stream, so every fault is about time: bytes are sent (after the added delay) or held until the faults change,
 * as a link that went down holds them until TCP's retransmissions get them through once it is back up. A lost packet
 * is, above TCP, a chunk late by a retransmission timeout, with everything behind it.
 */

export type ProxyMode =
  /** Every byte through, after the delay. */
  | { kind: 'forward' }
  /** Connections are accepted and nothing crosses either way: a link that hangs. */
  | { kind: 'blackhole' }
  /**
   * The requests reach the host; of its answer on each connection only the first `bytes` come back, then nothing.
   * Counted from each connection's start: `dropConnections()` first cuts the next answer, not one kept alive.
   */
  | { kind: 'half-response'; bytes: number };

export interface Faults {
  mode: ProxyMode;
  /** Added to every chunk, each way. */
  delayMs: number;
  /** The share of chunks (0 to 1) lost once on the way: each such chunk is resent after `RETRANSMIT_MS`. */
  loss: number;
}

export const NO_FAULTS: Faults = { mode: { kind: 'forward' }, delayMs: 0, loss: 0 };

/** Linux's shortest retransmission timeout: what a lost segment costs at least. */
export const RETRANSMIT_MS = 200;

/** `to-host`: what the client (the hub) sends; `to-client`: what the host answers. */
export type Direction = 'to-host' | 'to-client';

/**
 * How much of `bytes` (waiting to cross one way) crosses now: the rest is held. `answered` is how many bytes of the
 * host's answer this connection already let through.
 */
export function passable(faults: Faults, direction: Direction, bytes: number, answered: number): number {
  switch (faults.mode.kind) {
    case 'forward':
      return bytes;
    case 'blackhole':
      return 0;
    case 'half-response':
      return direction === 'to-host' ? bytes : Math.min(bytes, Math.max(0, faults.mode.bytes - answered));
  }
}

/**
 * When a chunk let through at `now` is written: after the delay (and a retransmission when `random()`, in [0, 1),
 * falls under the loss), never before the one let through before it.
 */
export function dueAt(now: number, faults: Faults, previousDue: number, random: () => number): number {
  const lost = faults.loss > 0 && random() < faults.loss;
  return Math.max(now + faults.delayMs + (lost ? RETRANSMIT_MS : 0), previousDue);
}
