import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import type { EventBus } from '../events/bus.js';
import { AgentMarks } from './agent-marks.js';
import type { TurnError } from '../wire/fleet.js';

/**
 * Each agent's failed last turn (Agent.turn_error), published as agent_turn_error so the fleet shows it without a
 * refetch. In memory: after a restart the fleet starts clear, and the thread's note stays.
 */
export class TurnErrors {
  private readonly errors: AgentMarks<TurnError>;

  constructor(private readonly deps: { bus: EventBus; clock: Clock }) {
    this.errors = new AgentMarks((agent, turn_error) => deps.bus.publish('agent_turn_error', { agent, turn_error }));
  }

  of(agent: string): TurnError | null {
    return this.errors.of(agent);
  }

  failed(agent: string, message: string): void {
    this.errors.set(agent, { at: rfc3339(this.deps.clock.now()), message });
  }

  /** The agent's next turn started (or it is gone): its failure is over. */
  clear(agent: string): void {
    this.errors.clear(agent);
  }

  renamed(from: string, to: string): void {
    this.errors.renamed(from, to);
  }
}
