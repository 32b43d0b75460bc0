import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { processesIn } from './strays.js';

/** Ends Leo's private tmux server of `home` (agents outlive a daemon by design, so nothing else ends it). */
export function killTmuxServer(home: string): void {
  const socket = path.join(home, 'state', 'tmux.sock');
  if (fs.existsSync(socket)) spawnSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' });
}

const removeHome = (home: string) => fs.rmSync(home, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });

/**
 * Temp folders and homes made and not yet cleaned up. A test file whose test failed before its clean-up ran, or that
 * has none, still ends their tmux servers and programs and removes the folders when its process exits (the runner's
 * --test-force-exit ends every file's process through process.exit, which runs 'exit' listeners).
 */
const live = new Set<string>();

/** Ends every process of `home`: its tmux server, then what still runs there or with it as its home. */
function endProcessesOf(home: string): void {
  killTmuxServer(home);
  for (const pid of processesIn(home)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* exited meanwhile */
    }
  }
}

process.on('exit', () => {
  for (const home of live) {
    endProcessesOf(home);
    try {
      removeHome(home);
    } catch {
      /* a program still writing into it: the runner's sweep names and removes it */
    }
  }
});

/** A new folder under the system temp folder, removed when the test file's process exits if not before. */
export function tempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  live.add(dir);
  return dir;
}

/** A throwaway LEO_HOME (and user home) under the system temp folder; never the real ~/.leo. */
export function makeTempHome(configYaml = ''): { home: string; env: NodeJS.ProcessEnv; cleanup(): void } {
  const home = tempDir('leo-test-');
  fs.writeFileSync(path.join(home, 'leo.yaml'), configYaml, { mode: 0o600 });
  const env = { ...process.env, LEO_HOME: home, LEO_USER_HOME: home };
  // Ends the home's processes first (a daemon or tmux server a test failed to stop would run on in a removed folder);
  // the removal is retried: a program still exiting on its hangup can add a file meanwhile (ENOTEMPTY).
  const cleanup = () => {
    endProcessesOf(home);
    removeHome(home);
    live.delete(home);
  };
  return { home, env, cleanup };
}

/**
 * Config text that binds an ephemeral loopback port and keeps logs quiet, plus whatever the test adds:
 * `web` holds extra lines for the web section (indented two spaces), `extra` other top-level sections.
 */
export function testConfig(extra = '', web = ''): string {
  // A test that restarts a daemon others reach (a hub's host) names its port; the rest take any free one.
  const listen = /^\s*listen:/m.test(web) ? '' : '  listen: 127.0.0.1:0\n';
  return `web:\n${listen}${web}log:\n  level: warn\npool:\n  threads: 1\n${extra}`;
}
