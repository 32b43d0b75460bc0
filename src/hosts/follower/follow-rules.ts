import type { HostStatus } from '../../wire/host.js';

/** The pure rules of following a host's event stream (issue 31, Fan-in): status, resume and retry. */

/** Where a follower stands in a host's stream: the boot it saw and the last seq it read in it. */
export interface Cursor {
  bootId: string;
  seq: number;
}

export const MAX_BACKOFF_MS = 60_000;
const FIRST_BACKOFF_MS = 1_000;

/**
 * A connected stream is `stale` once it has been silent (no event, no heartbeat comment) for two heartbeat intervals;
 * a host the follower cannot reach is `offline`.
 */
export function statusOf(connected: boolean, now: number, lastHeardAt: number, heartbeatMs: number): HostStatus {
  if (!connected) return 'offline';
  return now - lastHeardAt >= 2 * heartbeatMs ? 'stale' : 'online';
}

/** The wait before the attempt after `failures` failed ones in a row: doubling from 1 s, capped at 60 s. */
export function backoffMs(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * Whether a (re)connect's hello lets the follower carry on from `cursor` without refetching the snapshot. A host keeps
 * no event history (the spec: reconnect and refetch), so a resume is lossless only when nothing was published while
 * the follower was away: the same boot and hello.seq equal to the last seq read.
 */
export function helloResumes(cursor: Cursor | null, hello: Cursor): boolean {
  return cursor !== null && cursor.bootId === hello.bootId && cursor.seq === hello.seq;
}

/** An event whose seq is not the next one means events were lost in between (or the host renumbered). */
export function isGap(lastSeq: number, seq: number): boolean {
  return seq !== lastSeq + 1;
}
