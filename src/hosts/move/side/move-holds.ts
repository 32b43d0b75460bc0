import fs from 'node:fs';
import path from 'node:path';
import { agentShipping } from '../../../agents/agent-error.js';
import type { AgentState } from '../../../agents/agent-record.js';
import type { LeoError } from '../../../core/leo-error.js';
import { readJson, writeJsonAtomic } from './move-files.js';

/** An agent a move parked: what the move's id parked, and the state it had, which resume gives back. */
export interface Hold {
  id: string;
  agent: string;
  was: AgentState;
  /** The move packed the agent's thread: what is sent now would be left behind, so it is refused until the move ends. */
  packed?: true;
}

const PARK_FILE = 'park.json';

/**
 * The agents parked for a move (issue 32), by the move's id: nothing is typed into one and nothing starts it (a message
 * waits in its thread, pending) until the move resumes it or marks it moved. Kept as a file in the move's folder, so a
 * daemon restart finds it still parked. The supervisor and the chat's delivery ask here.
 */
export class MoveHolds {
  private readonly holds = new Map<string, Hold>();
  private readonly waiting = new Map<string, ((free: boolean) => void)[]>();
  private closed = false;

  /** `movesDir`: <state>/moves, one folder per move id. */
  constructor(readonly movesDir: string) {
    const ids = fs.existsSync(movesDir) ? fs.readdirSync(movesDir) : [];
    for (const id of ids) {
      const hold = readJson<Hold>(path.join(movesDir, id, PARK_FILE));
      if (hold) this.holds.set(hold.agent, hold);
    }
  }

  /** The hold on `agent`, if a move parked it. */
  of(agent: string): Hold | null {
    return this.holds.get(agent) ?? null;
  }

  /** The hold move `id` put on an agent, if any. */
  byId(id: string): Hold | null {
    return [...this.holds.values()].find((h) => h.id === id) ?? null;
  }

  isHeld(agent: string): boolean {
    return this.holds.has(agent);
  }

  /** Holds `agent` for move `id` (written before the agent is stopped, so no start slips in between). */
  hold(hold: Hold): void {
    writeJsonAtomic(path.join(this.movesDir, hold.id, PARK_FILE), hold);
    this.holds.set(hold.agent, hold);
  }

  /** Move `id` is about to pack its agent's thread: from now on a send is refused (sendError) instead of held. */
  seal(id: string): void {
    const hold = this.byId(id);
    if (!hold || hold.packed) return;
    this.hold({ ...hold, packed: true });
  }

  /**
   * Why a message sent to `agent` now is not taken here: its move packed the thread already, so it would never reach
   * the agent's new place; 503 with Retry-After tells the sender to try again, and once the move ends the hub
   * forwards the retry there (or, the move undone, the agent here takes it). Null otherwise.
   */
  sendError(agent: string): LeoError | null {
    return this.holds.get(agent)?.packed ? agentShipping(agent) : null;
  }

  /** Lets go of what move `id` held: the messages waiting for the agent go on. */
  release(id: string): void {
    const hold = this.byId(id);
    fs.rmSync(path.join(this.movesDir, id, PARK_FILE), { force: true });
    if (!hold) return;
    this.holds.delete(hold.agent);
    for (const go of this.waiting.get(hold.agent) ?? []) go(true);
    this.waiting.delete(hold.agent);
  }

  /**
   * True once `agent` is not held (at once when it is not); false when the daemon stops first, which leaves what
   * waited pending for the next daemon (the chat's outbox) instead of holding the shutdown.
   */
  whenFree(agent: string): Promise<boolean> {
    if (!this.holds.has(agent)) return Promise.resolve(true);
    if (this.closed) return Promise.resolve(false);
    return new Promise((go) => this.waiting.set(agent, [...(this.waiting.get(agent) ?? []), go]));
  }

  /** The daemon stops: every wait ends, unfree. */
  close(): void {
    this.closed = true;
    for (const waits of this.waiting.values()) for (const go of waits) go(false);
    this.waiting.clear();
  }
}
