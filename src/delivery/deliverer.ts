import { KeyedQueue } from '../core/keyed-queue.js';
import { LeoError } from '../core/leo-error.js';
import type { Logger } from '../core/logger.js';
import { StepTimes } from './step-times.js';

/**
 * One way of getting a user turn into an agent. Routes are tried in order; `available` says whether a route can serve
 * this agent at all, `deliver` throws when it tried and failed. The daemon has one route, tmux paste (Claude's channels
 * were ruled out: docs/CLAUDE-BRIDGE.md); the seam stays so the outbox and message-error tests deliver through an
 * in-memory route, without tmux.
 */
export interface DeliveryRoute {
  readonly name: string;
  available(agent: string): boolean | Promise<boolean>;
  /** `times` hears each step's end (StepTimes.lap), for the delivery's debug line. */
  deliver(agent: string, text: string, times: StepTimes): Promise<void>;
}

/**
 * Why a delivery failed, for a caller that answers a request with it: no route could serve the agent (it is not
 * running), a route gave up waiting for the agent to take input, or a route tried and failed.
 */
export type DeliveryFailure = 'not_running' | 'timeout' | 'failed';

/**
 * The agent not being there to type into is a 409 the sender can act on; the agent never showing an input box in
 * time is a 504; typing that did not take (the paste never showed, the text stayed in the box) is a 503: try again.
 */
const ANSWER: Record<DeliveryFailure, [number, string]> = {
  not_running: [409, 'agent_not_running'],
  timeout: [504, 'delivery_timeout'],
  failed: [503, 'delivery_failed'],
};

export class DeliveryError extends LeoError {
  constructor(
    message: string,
    readonly failure: DeliveryFailure,
    /** What each route that tried threw, in order. */
    readonly causes: readonly unknown[] = [],
  ) {
    super(ANSWER[failure][0], message, ANSWER[failure][1]);
    this.name = 'DeliveryError';
  }
}

/** Thrown by a route that waited for the agent to be ready for input, and gave up. */
export class DeliveryTimeout extends Error {}

/**
 * Delivers into agents through the first route that works. Deliveries to one agent run one at a time (never two
 * pastes interleaved in one pane); different agents deliver in parallel.
 */
export class Deliverer {
  private readonly queues = new KeyedQueue();

  constructor(
    private readonly routes: readonly DeliveryRoute[],
    /** At debug level, one line per delivery with where its time went (StepTimes). */
    private readonly logger?: Logger,
  ) {}

  /**
   * Resolves with the route that delivered; rejects with a DeliveryError that says why every route failed.
   * `onStart` runs when this delivery's turn in the agent's queue comes, before any route acts: the caller's last
   * chance to record durably that the text may reach the agent from now on.
   */
  deliver(agent: string, text: string, onStart?: () => void): Promise<string> {
    const times = new StepTimes();
    return this.queues.run(agent, async () => {
      // Behind the agent's earlier deliveries.
      times.lap('queued');
      onStart?.();
      const reasons: string[] = [];
      const causes: unknown[] = [];
      for (const route of this.routes) {
        if (!(await route.available(agent))) continue;
        try {
          await route.deliver(agent, text, times);
          this.logger?.debug({ agent, route: route.name, ms: times.ms }, 'delivery steps');
          return route.name;
        } catch (err) {
          reasons.push(`${route.name}: ${(err as Error).message}`);
          causes.push(err);
        }
      }
      if (!causes.length) throw new DeliveryError('no delivery route is available for this agent', 'not_running');
      const failure = causes.some((c) => c instanceof DeliveryTimeout) ? 'timeout' : 'failed';
      throw new DeliveryError(reasons.join('; '), failure, causes);
    });
  }
}
