import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import type { EventBus } from '../events/bus.js';
import type { TurnError } from './schemas.js';

/**
 * Each agent's failed last turn (Agent.turn_error), published as agent_turn_error so the fleet shows it without a
 * refetch. In memory: after a restart the fleet starts clear, and the thread's note stays.
 */
export class TurnErrors {
  private readonly errors = new Map<string, TurnError>();

  constructor(private readonly deps: { bus: EventBus; clock: Clock }) {}

  of(agent: string): TurnError | null {
    return this.errors.get(agent) ?? null;
  }

  failed(agent: string, message: string): void {
    const error = { at: rfc3339(this.deps.clock.now()), message };
    this.errors.set(agent, error);
    this.deps.bus.publish('agent_turn_error', { agent, turn_error: error });
  }

  /** The agent's next turn started (or it is gone): its failure is over. */
  clear(agent: string): void {
    if (!this.errors.delete(agent)) return;
    this.deps.bus.publish('agent_turn_error', { agent, turn_error: null });
  }

  renamed(from: string, to: string): void {
    const error = this.errors.get(from);
    if (!error) return;
    this.errors.delete(from);
    this.errors.set(to, error);
  }
}
