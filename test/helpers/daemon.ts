import { spawnSync } from 'node:child_process';
import type https from 'node:https';
import path from 'node:path';
import type { z } from 'zod';
import { ManualClock, type Clock } from '../../src/core/clock.js';
import { createLogger, type Logger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { endProcessesIn } from './strays.js';
import { killTmuxServer, makeTempHome, testConfig } from './temp-home.js';

export { killTmuxServer };
import { request, type Response, type Target } from './http.js';

export interface TestDaemon {
  daemon: Daemon;
  clock: Clock;
  home: string;
  tcp: Target;
  socket: Target;
  /** Stops the daemon, ends Leo's private tmux server (agents outlive a daemon by design) and removes the home. */
  stop(): Promise<void>;
  /**
   * Closes the daemon and starts the next one on the same home, clock and socket, as `leo restart` would: agents keep
   * running in tmux. `daemon` and `tcp` then point at the new one.
   */
  restart(): Promise<void>;
  /** A request over TCP with the operator token (and a JSON body when `body` is given). */
  op(method: string, path: string, body?: unknown): Promise<Response>;
  /** GET over TCP with the operator token: the answer's `data` parsed by `schema` (a wire shape), or a throw. */
  get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>>;
}

/** What an agent's pane shows (with `history` lines of scrollback), read from Leo's private tmux server. */
export function paneText(home: string, agent: string, history = 0): string {
  return spawnSync(
    'tmux',
    [
      '-S',
      path.join(home, 'state', 'tmux.sock'),
      'capture-pane',
      '-p',
      '-J',
      '-S',
      `-${history}`,
      '-t',
      `=leo-${agent}:`,
    ],
    { encoding: 'utf8' },
  ).stdout;
}

/** The real daemon in-process with both real listeners, in a throwaway LEO_HOME. */
export async function startTestDaemon(
  opts: { config?: string; web?: string; clock?: Clock; pushAgent?: https.Agent; logger?: Logger } = {},
): Promise<TestDaemon> {
  const t = makeTempHome(testConfig(opts.config ?? '', opts.web ?? ''));
  const clock = opts.clock ?? new ManualClock(Date.now());
  const start = () =>
    startDaemon({
      env: t.env,
      clock,
      logger: opts.logger ?? createLogger('warn'),
      ...(opts.pushAgent ? { pushAgent: opts.pushAgent } : {}),
    });
  const daemon = await start();
  const tcp = { port: daemon.port };
  const test: TestDaemon = {
    daemon,
    clock,
    home: t.home,
    tcp,
    socket: { socketPath: daemon.paths.socketFile },
    async restart() {
      await this.daemon.close();
      this.daemon = await start();
      tcp.port = this.daemon.port;
    },
    async stop() {
      await this.daemon.close();
      killTmuxServer(t.home);
      await endProcessesIn(t.home);
      t.cleanup();
    },
    op(method, p, body) {
      return request(tcp, method, p, { token: test.daemon.operatorToken, body });
    },
    async get(p, schema) {
      const r = await test.op('GET', p);
      if (r.status !== 200) throw new Error(`GET ${p} answered ${r.status}: ${r.text}`);
      return schema.parse(r.json.data);
    },
  };
  return test;
}
