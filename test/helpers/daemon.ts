import { spawnSync } from 'node:child_process';
import type https from 'node:https';
import path from 'node:path';
import type { z } from 'zod';
import { ManualClock, type Clock } from '../../src/core/clock.js';
import { createLogger, type Logger } from '../../src/core/logger.js';
import { startDaemon, type Daemon, type DaemonOptions } from '../../src/daemon/daemon.js';
import { endProcessesIn } from './strays.js';
import { killTmuxServer, makeTempHome, testConfig } from './temp-home.js';

export { killTmuxServer };
import { request, type Response, type Target } from './http.js';

/** Requests as one caller of the daemon: its listener and token. */
export interface Caller {
  /** A request (with a JSON body when `body` is given). */
  op(method: string, path: string, body?: unknown): Promise<Response>;
  /** GET: the answer's `data` parsed by `schema` (a wire shape), or a throw. */
  get<S extends z.ZodType>(path: string, schema: S): Promise<z.output<S>>;
}

/** The operator over TCP: `op` and `get` carry the operator token. */
export interface TestDaemon extends Caller {
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
  /** Another caller over TCP: a device's, a client's or an agent's token, or none. */
  as(token: string | undefined): Caller;
  /** A caller on the unix socket, which needs no token. */
  local: Caller;
}

/** The requests of one caller: `token` is read at each request (the operator's changes with a restart). */
export function caller(target: Target, token: () => string | undefined): Caller {
  const c: Caller = {
    op(method, p, body) {
      const t = token();
      return request(target, method, p, { ...(t ? { token: t } : {}), body });
    },
    async get(p, schema) {
      const r = await c.op('GET', p);
      if (r.status !== 200) throw new Error(`GET ${p} answered ${r.status}: ${r.text}`);
      return schema.parse(r.json.data);
    },
  };
  return c;
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
  opts: {
    config?: string;
    web?: string;
    clock?: Clock;
    pushAgent?: https.Agent;
    logger?: Logger;
    moveSides?: DaemonOptions['moveSides'];
    threadCarrier?: DaemonOptions['threadCarrier'];
    webRoot?: string;
    /** Variables the daemon runs with over the test's own (a PATH that finds a fake program first). */
    env?: NodeJS.ProcessEnv;
  } = {},
): Promise<TestDaemon> {
  const t = makeTempHome(testConfig(opts.config ?? '', opts.web ?? ''));
  const clock = opts.clock ?? new ManualClock(Date.now());
  const start = () =>
    startDaemon({
      env: { ...t.env, ...opts.env },
      clock,
      logger: opts.logger ?? createLogger('warn'),
      ...(opts.pushAgent ? { pushAgent: opts.pushAgent } : {}),
      ...(opts.moveSides ? { moveSides: opts.moveSides } : {}),
      ...(opts.threadCarrier ? { threadCarrier: opts.threadCarrier } : {}),
      ...(opts.webRoot ? { webRoot: opts.webRoot } : {}),
    });
  const daemon = await start();
  const tcp = { port: daemon.port };
  const socket = { socketPath: daemon.paths.socketFile };
  const test: TestDaemon = {
    daemon,
    clock,
    home: t.home,
    tcp,
    socket,
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
    ...caller(tcp, () => test.daemon.operatorToken),
    as: (token) => caller(tcp, () => token),
    local: caller(socket, () => undefined),
  };
  return test;
}
