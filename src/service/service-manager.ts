import fs from 'node:fs';
import path from 'node:path';
import type { Exec } from '../core/exec.js';
import { LAUNCHD_LABEL, SYSTEMD_UNIT_NAME, launchdPlist, systemdUnit, type ServiceSpec } from './unit-files.js';

/** Runs a program with the terminal handed over (status, logs -f), resolving with its exit code. */
export type Interactive = (file: string, args: readonly string[]) => Promise<number>;

export interface ServiceDeps {
  platform: NodeJS.Platform;
  /** HOME and XDG_CONFIG_HOME decide where the unit goes. */
  env: NodeJS.ProcessEnv;
  homeDir: string;
  uid: number;
  spec: ServiceSpec;
  exec: Exec;
  interactive: Interactive;
  out: (line: string) => void;
}

/** Where a platform keeps the service definition, and the log file launchd writes to. */
export function serviceFile(d: Pick<ServiceDeps, 'platform' | 'env' | 'homeDir'>): string {
  if (d.platform === 'darwin') return path.join(d.homeDir, 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const config = d.env.XDG_CONFIG_HOME || path.join(d.homeDir, '.config');
  return path.join(config, 'systemd', 'user', SYSTEMD_UNIT_NAME);
}

const launchdLog = (spec: ServiceSpec) => path.join(spec.leoHome, 'state', 'daemon.log');

function supported(d: ServiceDeps): void {
  if (d.platform !== 'linux' && d.platform !== 'darwin')
    throw new ServiceError(`leo service: ${d.platform} is not supported (systemd on Linux, launchd on macOS)`);
}

/** A failure with what to do about it; the CLI prints it and exits 1. */
export class ServiceError extends Error {}

/** A step's command, failing with its output and the manual fallback. */
async function step(d: ServiceDeps, file: string, args: string[], fallback: string): Promise<void> {
  let r;
  try {
    r = await d.exec(file, args, { timeoutMs: 30_000 });
  } catch (err) {
    throw new ServiceError(`\`${file}\` cannot run here (${(err as Error).message}).\n${fallback}`);
  }
  if (r.code !== 0)
    throw new ServiceError(
      `\`${file} ${args.join(' ')}\` failed: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}\n${fallback}`,
    );
}

/**
 * Writes the service definition and starts it. The file is written first, so a machine whose service manager cannot
 * be reached (a container, an SSH session without a user bus) keeps it, and the error names the commands that finish
 * the job from a login session.
 */
export async function installService(d: ServiceDeps): Promise<void> {
  supported(d);
  const file = serviceFile(d);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.mkdirSync(path.join(d.spec.leoHome, 'state'), { recursive: true, mode: 0o700 });
  if (d.platform === 'darwin') {
    fs.writeFileSync(file, launchdPlist(d.spec, launchdLog(d.spec)));
    d.out(`wrote ${file}`);
    const lint = await d.exec('plutil', ['-lint', file]).catch(() => null);
    if (lint && lint.code !== 0) throw new ServiceError(`plutil rejects ${file}: ${lint.stdout.trim()}`);
    const domain = `gui/${d.uid}`;
    // A previous install is unloaded first: bootstrap refuses a label that is already loaded.
    await d.exec('launchctl', ['bootout', `${domain}/${LAUNCHD_LABEL}`]).catch(() => null);
    await step(d, 'launchctl', ['bootstrap', domain, file], `Load it yourself: launchctl bootstrap ${domain} ${file}`);
    d.out(`started ${LAUNCHD_LABEL}; it starts at every login. Logs: leo service logs (${launchdLog(d.spec)})`);
    return;
  }
  fs.writeFileSync(file, systemdUnit(d.spec));
  d.out(`wrote ${file}`);
  const fallback =
    'The unit is written but not enabled: systemd --user is not reachable from this shell (no user session bus?).\n' +
    'From a login session run: systemctl --user daemon-reload && systemctl --user enable --now leo\n' +
    'To keep it running after you log out: loginctl enable-linger $USER. Until then, run `leo daemon` yourself.';
  await step(d, 'systemctl', ['--user', 'daemon-reload'], fallback);
  await step(d, 'systemctl', ['--user', 'enable', '--now', SYSTEMD_UNIT_NAME], fallback);
  d.out(
    'started leo.service; it starts at every login (`loginctl enable-linger $USER` keeps it running after logout).\n' +
      'Status: leo service status · logs: leo service logs',
  );
}

/** Stops the service and removes its definition; agents keep running in Leo's tmux server until stopped. */
export async function uninstallService(d: ServiceDeps): Promise<void> {
  supported(d);
  const file = serviceFile(d);
  if (d.platform === 'darwin') {
    await d.exec('launchctl', ['bootout', `gui/${d.uid}/${LAUNCHD_LABEL}`]).catch(() => null);
  } else {
    // Best effort: with no user bus there is nothing running to stop, and the file still goes.
    await d.exec('systemctl', ['--user', 'disable', '--now', SYSTEMD_UNIT_NAME]).catch(() => null);
  }
  const existed = fs.existsSync(file);
  fs.rmSync(file, { force: true });
  if (d.platform === 'linux') await d.exec('systemctl', ['--user', 'daemon-reload']).catch(() => null);
  d.out(existed ? `removed ${file}` : `no service installed (${file} absent)`);
}

/** The service manager's own view of the daemon. */
export function serviceStatus(d: ServiceDeps): Promise<number> {
  supported(d);
  if (d.platform === 'darwin') return d.interactive('launchctl', ['print', `gui/${d.uid}/${LAUNCHD_LABEL}`]);
  return d.interactive('systemctl', ['--user', 'status', '--no-pager', SYSTEMD_UNIT_NAME]);
}

/** The daemon's log: the journal on Linux, the plist's log file on macOS. */
export function serviceLogs(d: ServiceDeps, o: { follow: boolean; lines: number }): Promise<number> {
  supported(d);
  const follow = o.follow ? ['-f'] : [];
  if (d.platform === 'darwin') return d.interactive('tail', ['-n', String(o.lines), ...follow, launchdLog(d.spec)]);
  return d.interactive('journalctl', [
    '--user',
    '-u',
    SYSTEMD_UNIT_NAME,
    '-n',
    String(o.lines),
    '--no-pager',
    ...follow,
  ]);
}
