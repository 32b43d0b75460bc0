import { Readable } from 'node:stream';
import type { Clock } from '../../../core/clock.js';
import type { AgentPack } from '../../../wire/agent-pack.js';
import type { MoveOperation } from '../../../wire/move.js';
import { onSide, SideFailure } from './move-faults.js';
import type { MoveSide } from './move-sides.js';

/** At most this often a shipped chunk is reported (saved and published): ~4 a second. */
export const SHIPPED_EVERY_MS = 250;

export interface Shipment {
  op: MoveOperation;
  source: MoveSide;
  target: MoveSide;
  clock: Clock;
  /** The bytes on the target so far, out of all the pack's. */
  shipped(bytesDone: number, bytesTotal: number): void;
}

/**
 * The ship step: the source packs the agent, the target says which parts it already holds whole (a retried ship sends
 * only the rest), and each other part streams from the source to the target through the hub. Answers the pack, which
 * the target's spawn is given.
 */
export async function ship(s: Shipment): Promise<AgentPack> {
  const { op } = s;
  const pack = await onSide('source', () => s.source.pack(op));
  const held = new Set(await onSide('target', () => s.target.held(op)));
  const total = pack.parts.reduce((sum, p) => sum + p.bytes, 0);
  let done = pack.parts.reduce((sum, p) => sum + (held.has(p.name) ? p.bytes : 0), 0);
  s.shipped(done, total);
  let reported = s.clock.now();
  for (const part of pack.parts) {
    if (held.has(part.name)) continue;
    const body = await onSide('source', () => s.source.part(op, part.name));
    const counted = counting(body, (n) => {
      // A part longer than its manifest says is the target's to refuse; the figure never passes the total.
      done = Math.min(total, done + n);
      if (s.clock.now() - reported < SHIPPED_EVERY_MS) return;
      reported = s.clock.now();
      s.shipped(done, total);
    });
    await onSide('target', () => s.target.receive(op, part.name, counted.stream)).catch((err: unknown) => {
      // The target gave up because the source's stream broke: the fault is the source's.
      throw counted.failed() ? new SideFailure('source', counted.failed()!.error) : err;
    });
  }
  s.shipped(total, total);
  return pack;
}

/** `body` passed on as it is read, counting its bytes, remembering whether it broke (the source's fault). */
function counting(body: Readable, read: (bytes: number) => void) {
  let broke: { error: unknown } | null = null;
  async function* chunks() {
    try {
      for await (const chunk of body) {
        read((chunk as Buffer).length);
        yield chunk as Buffer;
      }
    } catch (error) {
      broke = { error };
      throw error;
    }
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), failed: () => broke as { error: unknown } | null };
}
