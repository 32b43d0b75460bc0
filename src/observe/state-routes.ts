import type { FastifyPluginAsync } from 'fastify';
import type { Principal } from '../wire/token-kinds.js';
import { LEO_VERSION } from '../core/version.js';
import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import { Access } from '../http/access.js';
import { okOf } from '../http/openapi.js';
import { StateSnapshot, type Agent, type AgentMessage, type Task, type TaskRun } from '../wire/fleet.js';
import type { HostEntry } from '../wire/host.js';
import { SnapshotCache } from './snapshot-cache.js';

export interface StateSources {
  clock: Clock;
  /** Values that change whenever anything the snapshot lists may have (events published, sweeps, the config). */
  version(): readonly unknown[];
  /** Where the caller's event stream stands now (EventBus.lastSeq of its audience). */
  seq(principal: Principal): number;
  agents(): Agent[];
  tasks(): Task[];
  recentRuns(): TaskRun[];
  recentMessages(): AgentMessage[];
  /** On a hub, the hosts it follows; undefined on a daemon that follows none. */
  hosts(): HostEntry[] | undefined;
}

/** A snapshot this old is rebuilt even without a version change, for the fields derived from the clock. */
const MAX_AGE_MS = 1000;

type Cached = Omit<StateSnapshot, 'version' | 'server_time' | 'seq'>;

/**
 * GET /api/v1/state: the whole world from memory plus the agent store; never a tmux call per request. Everything but
 * server_time and seq is serialised once per change and spliced in, so a poll costs a string concatenation.
 */
export const stateRoutes: FastifyPluginAsync<StateSources> = async (app, src) => {
  const cache = new SnapshotCache(src.clock, MAX_AGE_MS);
  const build = (): Cached => {
    const hosts = src.hosts();
    return {
      leo_version: LEO_VERSION,
      agents: src.agents(),
      tasks: src.tasks(),
      recent_runs: src.recentRuns(),
      recent_messages: src.recentMessages(),
      ...(hosts ? { hosts } : {}),
    };
  };
  const state = { config: { access: Access.readers }, schema: { response: { 200: okOf(StateSnapshot) } } };
  app.get('/api/v1/state', state, async (req, reply) => {
    // Built and numbered in one synchronous step: no event can be published between the two.
    const rest = cache.get(src.version(), build);
    const seq = src.seq(req.principal!);
    const head = `{"ok":true,"data":{"version":1,"server_time":${JSON.stringify(rfc3339(src.clock.now()))},"seq":${seq},`;
    return reply.type('application/json; charset=utf-8').send(`${head}${rest.slice(1)}}`);
  });
};
