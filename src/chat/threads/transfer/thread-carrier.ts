import type { ThreadManifest } from '../../../wire/thread-pack.js';

/**
 * How an agent's thread goes with it to another host (issue 32): packed on the source, taken in on the target under
 * the agent's name there. Each call is idempotent: a retried move packs, unpacks or discards again.
 */
export interface ThreadCarrier {
  /** Writes `agent`'s thread into the folder `dir` and describes what it wrote (paths relative to `dir`). */
  pack(agent: string, dir: string): Promise<ThreadManifest>;
  /**
   * Takes in a packed thread as agent `as`'s, each file checked against the manifest first; again is a no-op. Called
   * once `as` is spawned here: the messages the source had not typed yet go to this host's outbox, typed into `as`.
   */
  unpack(dir: string, manifest: ThreadManifest, as: string): Promise<void>;
  /** Removes agent `as`'s thread: what an undone move had unpacked on the target. */
  discard(as: string): Promise<void>;
  /**
   * The source's side once the agent runs at `address` (`name@host`): its open asks, prompts and cards close with a
   * note saying where it went, and the thread gets a system note saying so.
   */
  closeForMove(agent: string, address: string): Promise<void>;
}
