import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import type { EventBus } from '../events/bus.js';
import { AgentMarks } from './agent-marks.js';
import type { NeedsInput, NeedsInputHold } from '../wire/fleet.js';

/**
 * Each agent's own needs_input alert (Agent.needs_input, event agent_needs_input): its terminal holds it on something
 * only a person there can clear. Delivery raises it while a message waits on such a screen and clears it when the
 * screen lets the message in or the wait ends; the chat pushes each alert raised (chat-wiring.ts).
 *
 * A card that asks in the thread (a permission prompt, a questions card) carries its own alert, so while one is open
 * the agent's own is dropped in its favour: not raised, and cleared if it was (leo-chat.md, Push). In memory, like
 * turn_error.
 */
export class NeedsInputAlerts {
  private readonly alerts: AgentMarks<NeedsInput>;

  constructor(
    private readonly deps: {
      bus: EventBus;
      clock: Clock;
      /** Whether a card open in the agent's thread already asks for it. */
      superseded(agent: string): boolean;
    },
  ) {
    this.alerts = new AgentMarks((agent, needs_input) => deps.bus.publish('agent_needs_input', { agent, needs_input }));
  }

  of(agent: string): NeedsInput | null {
    return this.alerts.of(agent);
  }

  /** Raises the alert, or keeps the one up when it says the same (its `at` stays: one alert, one push). */
  raise(agent: string, hold: NeedsInputHold): void {
    if (this.deps.superseded(agent)) return this.clear(agent);
    const now = this.alerts.of(agent);
    if (now?.reason === hold.reason && now.text === hold.text) return;
    this.alerts.set(agent, { ...hold, at: rfc3339(this.deps.clock.now()) });
  }

  clear(agent: string): void {
    this.alerts.clear(agent);
  }

  renamed(from: string, to: string): void {
    this.alerts.renamed(from, to);
  }
}
