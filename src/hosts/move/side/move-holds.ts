import fs from 'node:fs';
import path from 'node:path';
import type { AgentState } from '../../../agents/agent-record.js';
import { readJson, writeJsonAtomic } from './move-files.js';

/** An agent a move parked: what the move's id parked, and the state it had, which resume gives back. */
export interface Hold {
  id: string;
  agent: string;
  was: AgentState;
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
