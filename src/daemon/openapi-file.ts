import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../core/logger.js';
import { startDaemon } from './daemon.js';

/**
 * The OpenAPI document as the daemon builds it, from a daemon started in a throwaway LEO_HOME: the routes and their
 * schemas are registered by the same wiring that serves them, so the file cannot list a route the daemon lacks.
 */
export async function buildOpenApiDocument(): Promise<string> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-openapi-'));
  fs.writeFileSync(path.join(home, 'leo.yaml'), 'web:\n  listen: 127.0.0.1:0\npool:\n  threads: 1\n', { mode: 0o600 });
  const daemon = await startDaemon({
    env: { ...process.env, LEO_HOME: home, LEO_USER_HOME: home },
    logger: createLogger('error'),
  });
  try {
    return `${JSON.stringify(daemon.openapi(), null, 2)}\n`;
  } finally {
    await daemon.close();
    // Agents (none here) outlive a daemon by design, and so does the private tmux server it started.
    spawnSync('tmux', ['-S', path.join(daemon.paths.stateDir, 'tmux.sock'), 'kill-server'], { stdio: 'ignore' });
    fs.rmSync(home, { recursive: true, force: true });
  }
}
