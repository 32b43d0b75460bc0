import type { Readable } from 'node:stream';
import type { AgentPack } from '../../../wire/agent-pack.js';
import type { MoveOperation } from '../../../wire/move.js';

/**
 * The two daemons a move or copy talks to, as the hub's runner sees them (issue 32): the hub itself (calls into its
 * own services) or a followed host (requests over its /api/v1 with the peer token). Every call is idempotent and keyed
 * by `op.id`, so the runner, restarted or retrying, simply calls again. A call that cannot reach its daemon rejects
 * with HostUnreachableError; one the daemon answered with a refusal rejects with HostRefusedError (host-client.ts).
 */
export interface MoveSide {
  /** Source: stops the agent's process and holds what is sent to it (queued, not typed), keyed by op.id. */
  park(op: MoveOperation): Promise<void>;
  /** Source: undoes park: the agent runs again (resumed), what was held is delivered. */
  resume(op: MoveOperation): Promise<void>;
  /** Source: what the workspace would ship, in bytes; refused (409 workspace_too_large) over the size limit. */
  measure(op: MoveOperation): Promise<number>;
  /** Source: packs the agent (record, workspace, conversation, thread) once per op.id; again answers the same pack. */
  pack(op: MoveOperation): Promise<AgentPack>;
  /** Source: one packed part's bytes. */
  part(op: MoveOperation, name: string): Promise<Readable>;
  /** Target: which of the pack's parts it already holds whole (a retried ship sends only the rest). */
  held(op: MoveOperation): Promise<string[]>;
  /** Target: takes in one part (checked against the pack's size and sha256 when the pack is given to spawn). */
  receive(op: MoveOperation, name: string, body: Readable): Promise<void>;
  /**
   * Target: unpacks everything and spawns the agent as `op.as`, resumed; spawning again for op.id is a no-op. A move's
   * thread there waits for settle, so an undo never takes away an agent that read what it carried.
   */
  spawn(op: MoveOperation, pack: AgentPack): Promise<void>;
  /** Target: a move's source is marked: what waited for the agent there (carried messages too) is typed now. */
  settle(op: MoveOperation): Promise<void>;
  /** Target: removes what op.id put there (the agent it spawned, its thread, its workspace, the parts). */
  discard(op: MoveOperation): Promise<void>;
  /** Source: the dormant record (moved_to, moved_at, moved_as) and the thread's note; its open cards close. */
  mark(op: MoveOperation): Promise<void>;
}
