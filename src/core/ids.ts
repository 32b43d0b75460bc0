import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Random bytes drawn from the system's CSPRNG a pool at a time. */
const POOL = new Uint8Array(4096);
let drawn = POOL.length;

/**
 * ulid's generator: a fraction in [0, 1) per character of an id's random part. ulid's own asks the CSPRNG for one byte
 * per call, 16 calls per id: 77 µs an id on the main thread (7 % of it under the soak's load); from the pool, 0.7 µs.
 * The bytes are the same CSPRNG's, 256 values per character for ulid's 32, as before.
 */
function pooledRandom(): number {
  if (drawn === POOL.length) {
    randomFillSync(POOL);
    drawn = 0;
  }
  return POOL[drawn++]! / 256;
}

/**
 * ULIDs that sort in creation order even within one millisecond (and under a frozen test clock), so "ORDER BY id"
 * is creation order everywhere.
 */
export const newId: (now: number) => string = monotonicFactory(pooledRandom);
