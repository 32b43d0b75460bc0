import type { FastifyInstance } from 'fastify';
import type { AgentStore } from '../agents/agent-store.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { ThreadCarrier } from '../chat/threads/transfer/thread-carrier.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Exec } from '../core/exec.js';
import type { LeoPaths } from '../core/home.js';
import type { MoveHolds } from '../hosts/move/side/move-holds.js';
import { moveSideRoutes } from '../hosts/move/side/move-side-routes.js';
import { MoveSideService } from '../hosts/move/side/move-side-service.js';
import { WorkspacePacker } from '../hosts/move/workspace/index.js';
import type { Domain } from './domain.js';
import { LeoError } from '../core/leo-error.js';

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
  exec: Exec;
  config(): Config;
  paths: LeoPaths;
  userHome: string;
  clock: Clock;
}): Promise<Domain & { moves: MoveSideService }> {
  const moves = new MoveSideService({
    movesDir: d.holds.movesDir,
    supervisor: d.supervisor,
    records: d.agents,
    holds: d.holds,
    threads: d.threads,
    packer: new WorkspacePacker(d.exec),
    exec: d.exec,
    config: d.config,
    paths: d.paths,
    userHome: d.userHome,
    baseEnv: process.env,
    clock: d.clock,
  });
  await d.app.register(moveSideRoutes, { moves });
  return { moves };
}

/**
 * Until the chat's ThreadCarrier (src/chat/threads/transfer/) is wired here, a move's thread steps refuse, so a move
 * fails before it packs or spawns anything half-way: the lead replaces this with the real carrier at the merge.
 */
export const threadCarrierUnbuilt: ThreadCarrier = {
  pack: () => Promise.reject(unbuilt()),
  unpack: () => Promise.reject(unbuilt()),
  discard: async () => {},
  closeForMove: () => Promise.reject(unbuilt()),
};
const unbuilt = () => new LeoError(501, "this daemon cannot carry an agent's thread yet", 'not_implemented');
