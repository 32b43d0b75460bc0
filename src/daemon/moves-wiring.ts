import type { MoveSideDeps } from '../hosts/move/side/side-deps.js';
import type { FastifyInstance } from 'fastify';
import type { AgentStore } from '../agents/agent-store.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { ThreadCarrier } from '../chat/threads/transfer/thread-carrier.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Exec } from '../core/exec.js';
import type { FeatureSet } from '../core/features.js';
import type { LeoPaths } from '../core/home.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import { hostUnreachable } from '../hosts/proxy/proxy-rules.js';
import { machineName } from '../hosts/host-identity.js';
import { moveRoutes } from '../hosts/move/move-routes.js';
import { MoveFacts, type Machine } from '../hosts/move/operation/move-facts.js';
import { MoveRunner } from '../hosts/move/operation/move-runner.js';
import type { MoveSide } from '../hosts/move/operation/move-sides.js';
import { MoveStore } from '../hosts/move/operation/move-store.js';
import { localMoveSide } from '../hosts/move/side/local-move-side.js';
import type { MoveHolds } from '../hosts/move/side/move-holds.js';
import { moveSideRoutes } from '../hosts/move/side/move-side-routes.js';
import { MoveSideService } from '../hosts/move/side/move-side-service.js';
import { remoteMoveSide } from '../hosts/move/side/remote-move-side.js';
import { WorkspacePacker } from '../hosts/move/workspace/index.js';
import type { HubFanIn } from '../hosts/relay/hub-fan-in.js';
import type { Database } from '../store/database.js';
import type { Domain } from './domain.js';
import type { HostPeers } from './hosts-wiring.js';

/**
 * This daemon's side of the moves and copies a hub runs (issue 32): the service the hub's own runner calls
 * (localMoveSide) and the side routes a hub calls over the peer token.
 */
export async function wireMoveSides(d: {
  app: FastifyInstance;
  supervisor: Supervisor;
  agents: AgentStore;
  holds: MoveHolds;
  threads: ThreadCarrier;
  deliveries: MoveSideDeps['deliveries'];
  exec: Exec;
  config(): Config;
  paths: LeoPaths;
  userHome: string;
  clock: Clock;
}): Promise<MoveSideService> {
  const moves = new MoveSideService({
    movesDir: d.holds.movesDir,
    supervisor: d.supervisor,
    records: d.agents,
    holds: d.holds,
    threads: d.threads,
    deliveries: d.deliveries,
    packer: new WorkspacePacker(d.exec),
    exec: d.exec,
    config: d.config,
    paths: d.paths,
    userHome: d.userHome,
    baseEnv: process.env,
    clock: d.clock,
  });
  // A part can outgrow the workspace's measure: a changed binary's patch carries both sides in base85 (2.6 times).
  await d.app.register(moveSideRoutes, { moves, maxPartBytes: () => 3 * d.config().hosts.move_max_bytes });
  return moves;
}

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
  /** This daemon's own side, for a move from or to the hub itself. */
  own: MoveSideService;
  /** Tests: other sides than the real ones (null: the hub's own daemon, else a followed host). */
  sides?: (machine: Machine) => MoveSide;
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
  const own = localMoveSide(d.own);
  const runner = new MoveRunner({
    store: new MoveStore(d.db),
    facts,
    sides: d.sides ?? ((machine) => (machine === null ? own : followedSide(d.peers, machine))),
    publish: (move) => d.bus.publish('move_progress', { move }),
    clock: d.clock,
    logger: d.logger,
  });
  await d.app.register(moveRoutes, { runner });
  d.features.add('agent_move');
  return { start: () => runner.resume(), stop: async () => runner.stop() };
}

/** A followed host's side, over its /api/v1 with this hub's peer token, as the host's address says now. */
function followedSide(peers: HostPeers, host: string): MoveSide {
  const address = peers.hosts()[host];
  const token = peers.token(host);
  if (!address || !token) throw hostUnreachable(host, 'this hub does not follow it');
  return remoteMoveSide(peers.connect(address.url, address.pin), token, host);
}
