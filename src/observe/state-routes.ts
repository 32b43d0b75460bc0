import type { FastifyPluginAsync } from 'fastify';
import { LEO_VERSION } from '../core/version.js';
import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import { Access } from '../http/access.js';
import { ok } from '../http/envelope.js';
import type { Agent, AgentMessage, StateSnapshot, Task, TaskRun } from './schemas.js';

export interface StateSources {
  clock: Clock;
  agents(): Agent[];
  tasks(): Task[];
  recentRuns(): TaskRun[];
  recentMessages(): AgentMessage[];
}

/** GET /api/v1/state: the whole world from memory plus the agent store; never a tmux call per request. */
export const stateRoutes: FastifyPluginAsync<StateSources> = async (app, src) => {
  app.get('/api/v1/state', { config: { access: Access.readers } }, async () =>
    ok<StateSnapshot>({
      version: 1,
      server_time: rfc3339(src.clock.now()),
      leo_version: LEO_VERSION,
      agents: src.agents(),
      tasks: src.tasks(),
      recent_runs: src.recentRuns(),
      recent_messages: src.recentMessages(),
    }),
  );
};
