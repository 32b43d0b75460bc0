import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { realExec } from '../core/exec.js';
import { resolvePaths } from '../core/home.js';
import {
  ServiceError,
  installService,
  serviceLogs,
  serviceStatus,
  uninstallService,
  type Interactive,
  type ServiceDeps,
} from '../service/service-manager.js';
import type { ServiceSpec } from '../service/unit-files.js';

/** This leo, as the service should run it: this node, this checkout's (or package's) bin/leo.js, this shell's PATH. */
export function currentServiceSpec(env: NodeJS.ProcessEnv = process.env): ServiceSpec {
  const nodeDir = path.dirname(process.execPath);
  const entries = (env.PATH ?? '').split(path.delimiter).filter(Boolean);
  // The harness CLIs installed with npm -g sit next to node; keep them findable even from a trimmed PATH.
  const pathValue = [...new Set([nodeDir, ...entries, '/usr/local/bin', '/usr/bin', '/bin'])].join(path.delimiter);
  return {
    nodePath: process.execPath,
    leoBin: fileURLToPath(new URL('../../../bin/leo.js', import.meta.url)),
    leoHome: resolvePaths(env).home,
    path: pathValue,
  };
}

const inheritStdio: Interactive = (file, args) =>
  new Promise((resolve) => {
    const child = spawn(file, args, { stdio: 'inherit' });
    child.on('error', (err) => {
      console.error(`leo service: cannot run ${file}: ${err.message}`);
      resolve(127);
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });

function deps(): ServiceDeps {
  return {
    platform: process.platform,
    env: process.env,
    homeDir: os.homedir(),
    uid: process.getuid?.() ?? 0,
    spec: currentServiceSpec(),
    exec: realExec,
    interactive: inheritStdio,
    out: (line) => console.log(line),
  };
}

async function report(work: () => Promise<unknown>): Promise<void> {
  try {
    const code = await work();
    if (typeof code === 'number') process.exitCode = code;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    console.error(`leo service: ${err.message}`);
    process.exitCode = 1;
  }
}

export function registerServiceCommands(program: Command): void {
  const service = program
    .command('service')
    .description('run the daemon as a login service: a systemd user unit on Linux, a launchd agent on macOS');
  service
    .command('install')
    .description('write the unit (or plist) running this leo with this PATH and LEO_HOME, enable and start it')
    .action(() => report(() => installService(deps())));
  service
    .command('uninstall')
    .description('stop the service and remove its unit (agents keep running in their tmux sessions)')
    .action(() => report(() => uninstallService(deps())));
  service
    .command('status')
    .description("the service manager's view: running, restarts, its last log lines")
    .action(() => report(() => serviceStatus(deps())));
  service
    .command('logs')
    .description("the daemon's log (the journal on Linux, the plist's log file on macOS)")
    .option('-f, --follow', 'keep printing new lines')
    .option('-n, --lines <n>', 'how many lines', '200')
    .action((o: { follow?: boolean; lines: string }) =>
      report(() => serviceLogs(deps(), { follow: Boolean(o.follow), lines: Number(o.lines) || 200 })),
    );
}
