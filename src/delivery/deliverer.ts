import { KeyedQueue } from '../core/keyed-queue.js';

/**
 * One way of getting a user turn into an agent (the claude bridge, the agent's peer inbox, tmux paste). Routes are
 * tried in order; `available` says whether a route can serve this agent at all, `deliver` throws when it tried and
 * failed.
 */
export interface DeliveryRoute {
  readonly name: string;
  available(agent: string): boolean | Promise<boolean>;
  deliver(agent: string, text: string): Promise<void>;
}

export class DeliveryError extends Error {}

/**
 * Delivers into agents through the first route that works. Deliveries to one agent run one at a time (never two
 * pastes interleaved in one pane); different agents deliver in parallel.
 */
export class Deliverer {
  private readonly queues = new KeyedQueue();

  constructor(private readonly routes: readonly DeliveryRoute[]) {}

  /**
   * Resolves with the route that delivered; rejects with a DeliveryError that says why every route failed.
   * `onStart` runs when this delivery's turn in the agent's queue comes, before any route acts: the caller's last
   * chance to record durably that the text may reach the agent from now on.
   */
  deliver(agent: string, text: string, onStart?: () => void): Promise<string> {
    return this.queues.run(agent, async () => {
      onStart?.();
      const reasons: string[] = [];
      for (const route of this.routes) {
        if (!(await route.available(agent))) continue;
        try {
          await route.deliver(agent, text);
          return route.name;
        } catch (err) {
          reasons.push(`${route.name}: ${(err as Error).message}`);
        }
      }
      throw new DeliveryError(reasons.length ? reasons.join('; ') : 'no delivery route is available for this agent');
    });
  }
}
