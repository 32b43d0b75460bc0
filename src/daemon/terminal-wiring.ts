import type { FastifyInstance } from 'fastify';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import { sessionName } from '../tmux/session-name.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { interruptKey } from '../harnesses/index.js';
import type { StreamCaps } from '../events/stream-caps.js';
import { TerminalWatch } from '../terminal/terminal-watch.js';
import { terminalRoutes } from '../terminal/terminal-routes.js';
import { isSessionGone, type Tmux } from '../tmux/tmux.js';
import type { Domain } from './domain.js';

/** How often a watched agent's terminal is captured. */
const TERMINAL_INTERVAL_MS = 100;

export interface TerminalWiringDeps {
  app: FastifyInstance;
  tmux: Tmux;
  supervisor: Supervisor;
  clock: Clock;
  /** The long-lived stream caps, shared with /api/v1/events. */
  streams: StreamCaps;
  config(): Config;
}

/** The agents' live terminals (snapshot, stream, key bar), over the agents' tmux sessions. */
export async function wireTerminal(d: TerminalWiringDeps): Promise<Domain> {
  // A watched pane is captured this often: a change reaches the app within about this long (the goal is 250 ms p99).
  const capture = async (agent: string) => ({
    agent,
    ...(await d.tmux.captureScreen(sessionName(agent))),
    captured_at: new Date(d.clock.now()).toISOString(),
    interrupt: interruptKey(d.supervisor.has(agent) ? d.supervisor.get(agent).harness : undefined),
  });
  const terminals = new TerminalWatch({
    capture,
    isGone: isSessionGone,
    clock: d.clock,
    intervalMs: TERMINAL_INTERVAL_MS,
  });
  await d.app.register(terminalRoutes, {
    watch: terminals,
    capture,
    pressKeys: (agent, keys) => d.tmux.sendKeys(sessionName(agent), keys),
    exists: (agent) => d.supervisor.has(agent),
    isRunning: (agent) => d.supervisor.isRunning(agent),
    clock: d.clock,
    caps: d.streams,
    maxQueued: () => d.config().web.sse_queue,
  });
  return { stop: async () => terminals.close() };
}
