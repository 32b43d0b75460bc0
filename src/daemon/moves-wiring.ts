import type { FastifyInstance } from 'fastify';
import type { AgentStore } from '../agents/agent-store.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { FeatureSet } from '../core/features.js';
import { LeoError } from '../core/leo-error.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import { machineName } from '../hosts/host-identity.js';
import { moveRoutes } from '../hosts/move/move-routes.js';
import { MoveFacts, type Machine } from '../hosts/move/operation/move-facts.js';
import { MoveRunner } from '../hosts/move/operation/move-runner.js';
import type { MoveSide } from '../hosts/move/operation/move-sides.js';
import { MoveStore } from '../hosts/move/operation/move-store.js';
import type { HubFanIn } from '../hosts/relay/hub-fan-in.js';
import type { Database } from '../store/database.js';
import type { Domain } from './domain.js';
import type { HostPeers } from './hosts-wiring.js';

export interface MovesWiringDeps {
  app: FastifyInstance;
  db: Database;
  /** Where move_progress is published. */
  bus: EventBus;
  features: FeatureSet;
  clock: Clock;
  logger: Logger;
  config(): Config;
  supervisor: Supervisor;
  agents: AgentStore;
  peers: HostPeers;
  fanIn: HubFanIn;
  /** The daemon a move talks to on a machine: the hub's own (null), or a followed host. */
  sides(machine: Machine): MoveSide;
}

/**
 * Moving and copying agents between a hub's machines (issue 32): the runner over the moves table, its routes, the
 * agent_move feature. Start resumes every operation a previous hub process left unsettled.
 */
export async function wireMoves(d: MovesWiringDeps): Promise<Domain> {
  const facts = new MoveFacts({
    ...d.peers,
    own: {
      record: (name) => d.agents.get(name),
      busy: (name) => d.supervisor.get(name).activity === 'working',
      agents: () => d.agents.list(),
      templates: () => Object.keys(d.config().templates),
      environments: () => Object.keys(d.config().environments),
    },
    followedAgent: (address) => d.fanIn.agents().find((a) => a.name === address) ?? null,
    status: (host) => d.fanIn.entry(host)?.status ?? null,
    selfName: machineName,
  });
  const runner = new MoveRunner({
    store: new MoveStore(d.db),
    facts,
    sides: d.sides,
    publish: (move) => d.bus.publish('move_progress', { move }),
    clock: d.clock,
    logger: d.logger,
  });
  await d.app.register(moveRoutes, { runner });
  d.features.add('agent_move');
  return { start: () => runner.resume(), stop: async () => runner.stop() };
}

/**
 * Stands in for the MoveSides of the hub's own daemon and of a followed host (the side slice of issue 32 builds
 * them, and the composition root passes them as `sides`): every step is refused, so a move fails at its first one,
 * and its undo, with nothing done to undo, goes through at once.
 */
export function unbuiltMoveSides(): MoveSide {
  const refuse = async (): Promise<never> => {
    throw new LeoError(501, 'this daemon cannot move agents yet: its move sides are not built', 'not_implemented');
  };
  const nothingToUndo = async () => {};
  return {
    park: refuse,
    resume: nothingToUndo,
    pack: refuse,
    part: refuse,
    held: refuse,
    receive: refuse,
    spawn: refuse,
    discard: nothingToUndo,
    mark: refuse,
  };
}
