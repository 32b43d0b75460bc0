import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

/** iproute2's `ip`, in /sbin on Debian: on root's PATH, not always on the PATH a test runs with. */
export const IP = fs.existsSync('/sbin/ip') ? '/sbin/ip' : 'ip';

/** Runs `ip <args>` to completion; a failure throws with what `ip` said. */
export function ip(...args: string[]): string {
  const r = spawnSync(IP, args, { encoding: 'utf8' });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')}: ${r.stderr.trim() || `exit ${r.status}`}`);
  return r.stdout;
}

/** Like `ip`, for clean-up: what is already gone is no error. */
export function ipQuiet(...args: string[]): void {
  spawnSync(IP, args, { stdio: 'ignore' });
}

/** Why this process cannot make network namespaces, or null when it can try. */
export function namespacesUnavailable(): string | null {
  if (process.env.LEO_BENCH_NETWORK === 'loopback') return 'LEO_BENCH_NETWORK=loopback';
  if (process.platform !== 'linux') return `${process.platform} has no network namespaces`;
  if (process.getuid?.() !== 0) return 'not root';
  const r = spawnSync(IP, ['netns', 'list'], { stdio: 'ignore' });
  if (r.error) return '`ip` is not installed (Debian package iproute2)';
  return null;
}
