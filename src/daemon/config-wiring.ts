import type { FastifyInstance } from 'fastify';
import { configRoutes } from '../config/config-routes.js';
import { restartWarnings } from '../config/restart-warnings.js';
import type { ConfigWatcher } from '../config/watch.js';
import type { LeoPaths } from '../core/home.js';
import type { Logger } from '../core/logger.js';
import type { TlsReloader } from '../http/tls-files.js';
import { chatEngineFor } from '../harnesses/index.js';

export interface ConfigWiringDeps {
  app: FastifyInstance;
  /** Started before anything else: every service reads the config it holds. */
  watcher: ConfigWatcher;
  /** web.tls's pair, kept current (null over HTTP). */
  certificates: TlsReloader | null;
  logger: Logger;
  paths: LeoPaths;
}

/**
 * Follows leo.yaml's reloads (what changed that only a restart applies, the log level, the certificate) and registers
 * the config's routes. The domains that act on a reload subscribe to the watcher themselves as they are built.
 */
export async function wireConfig(d: ConfigWiringDeps) {
  let broken = false;
  d.watcher.on('reload_failed', () => (broken = true));
  d.watcher.on('change', (next, prev) => {
    broken = false;
    for (const warning of restartWarnings(next, prev)) d.logger.warn(warning);
    if (next.log.level !== prev.log.level) d.logger.level = next.log.level;
    d.certificates?.check();
  });
  const reload = (reason: string) => d.watcher.reload(reason);
  await d.app.register(configRoutes, {
    config: () => d.watcher.current,
    configFile: d.paths.configFile,
    home: d.paths.home,
    chatEngineFor,
    configBroken: () => broken,
    reload,
  });
  return {
    /** Whether the last reload failed (the config in force is the last good one). */
    broken: () => broken,
    reload,
    /** First: no reload starts while the daemon shuts down. */
    release: async () => {
      d.watcher.stop();
      d.certificates?.stop();
    },
  };
}
