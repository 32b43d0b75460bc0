import { ManualClock, type Clock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { makeTempHome, testConfig } from './temp-home.js';
import type { Target } from './http.js';

export interface TestDaemon {
  daemon: Daemon;
  home: string;
  tcp: Target;
  socket: Target;
  stop(): Promise<void>;
}

/** The real daemon in-process with both real listeners, in a throwaway LEO_HOME. */
export async function startTestDaemon(
  opts: { config?: string; web?: string; clock?: Clock } = {},
): Promise<TestDaemon> {
  const t = makeTempHome(testConfig(opts.config ?? '', opts.web ?? ''));
  const daemon = await startDaemon({
    env: t.env,
    clock: opts.clock ?? new ManualClock(Date.now()),
    logger: createLogger('warn'),
  });
  return {
    daemon,
    home: t.home,
    tcp: { port: daemon.port },
    socket: { socketPath: daemon.paths.socketFile },
    async stop() {
      await daemon.close();
      t.cleanup();
    },
  };
}
