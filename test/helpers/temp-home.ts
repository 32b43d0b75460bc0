import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** A throwaway LEO_HOME (and user home) under the system temp folder; never the real ~/.leo. */
export function makeTempHome(configYaml = ''): { home: string; env: NodeJS.ProcessEnv; cleanup(): void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-test-'));
  fs.writeFileSync(path.join(home, 'leo.yaml'), configYaml, { mode: 0o600 });
  const env = { ...process.env, LEO_HOME: home, LEO_USER_HOME: home };
  // Retried: a program still exiting on its hangup can add a file while the folder is removed (ENOTEMPTY).
  const cleanup = () => fs.rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  return { home, env, cleanup };
}

/**
 * Config text that binds an ephemeral loopback port and keeps logs quiet, plus whatever the test adds:
 * `web` holds extra lines for the web section (indented two spaces), `extra` other top-level sections.
 */
export function testConfig(extra = '', web = ''): string {
  return `web:\n  listen: 127.0.0.1:0\n${web}log:\n  level: warn\npool:\n  threads: 1\n${extra}`;
}
