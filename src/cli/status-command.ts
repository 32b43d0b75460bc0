import { loadConfigFile } from '../config/load.js';
import { resolvePaths, userHome } from '../core/home.js';
import { chatEngineFor } from '../harnesses/index.js';
import { runChecks } from '../doctor/checks.js';
import type { DaemonInfo } from '../http/system-routes.js';
import type { Message } from '../wire/message.js';
import type { StateSnapshot } from '../wire/fleet.js';
import { doctorWarnings, formatStatus, type StatusSnapshot } from '../status/status-report.js';
import { callDaemon } from './socket-client.js';

/** A daemon that does not answer within this is reported as not answering, not waited on. */
const TIMEOUT_MS = 10_000;

async function localWarnings(): Promise<StatusSnapshot['warnings']> {
  const paths = resolvePaths();
  const config = await loadConfigFile(paths.configFile, userHome(), chatEngineFor);
  return doctorWarnings(await runChecks({ paths, config, home: userHome() }));
}

/** `leo status`: the daemon, its fleet, what waits on the owner and the doctor's warnings, from the unix socket. */
export async function runStatusCommand(o: { json?: boolean }): Promise<void> {
  let snapshot: StatusSnapshot;
  try {
    const [daemon, state, open] = await Promise.all([
      callDaemon<DaemonInfo>('GET', '/api/v1/daemon', undefined, TIMEOUT_MS),
      callDaemon<StateSnapshot>('GET', '/api/v1/state', undefined, TIMEOUT_MS),
      callDaemon<Message[]>('GET', '/api/v1/chat/open', undefined, TIMEOUT_MS),
    ]);
    // The daemon judges its own CLIs and environment; only one too old to say is judged from this shell.
    const { warnings, ...info } = daemon;
    snapshot = { daemon: info, state, open, warnings: warnings ?? (await localWarnings()) };
  } catch (err) {
    if (o.json) console.log(JSON.stringify({ running: false, error: (err as Error).message }));
    console.error(`leo status: ${(err as Error).message}`);
    process.exitCode = 1;
    return;
  }
  console.log(o.json ? JSON.stringify({ running: true, ...snapshot }, null, 2) : formatStatus(snapshot));
}
