/**
 * Makes nginx with Debian's nchan module available for the fan-out benchmark: installs the packages with apt-get
 * when they are missing and this process is root, otherwise says what to run. Idempotent and silent when both are
 * already installed, so `fanout.ts` calls it on every run.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/fanout/nchan-setup.js
 *   import { ensureNchan } from './nchan-setup.js'; ensureNchan({ log });   (as scripts/bench.mjs does)
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const NCHAN_PACKAGES = ['nginx', 'libnginx-mod-nchan'] as const;
export const NGINX_BIN = '/usr/sbin/nginx';
export const NCHAN_MODULE = '/usr/lib/nginx/modules/ngx_nchan_module.so';

/** Packages of NCHAN_PACKAGES that dpkg does not report as installed (all of them where there is no dpkg). */
export function missingPackages(): string[] {
  return NCHAN_PACKAGES.filter((pkg) => {
    const r = spawnSync('dpkg', ['-s', pkg], { encoding: 'utf8' });
    return r.status !== 0 || !/^Status: install ok installed$/m.test(r.stdout);
  });
}

function aptGet(args: string[]): number | null {
  const r = spawnSync(
    'apt-get',
    // Wait for another apt/dpkg (unattended-upgrades…) rather than fail; keep any local nginx config as it is.
    ['-q', '-y', '-o', 'DPkg::Lock::Timeout=300', '-o', 'Dpkg::Options::=--force-confold', ...args],
    {
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', NEEDRESTART_MODE: 'a' },
      // apt's chatter goes to stderr: stdout is the benchmark's table.
      stdio: ['ignore', 2, 2],
    },
  );
  return r.status;
}

/** Installs what is missing; returns the packages it installed. Throws with the command to run when it cannot. */
export function ensureNchan({
  log = (l: string) => console.error(l),
}: { log?: (line: string) => void } = {}): string[] {
  const missing = missingPackages();
  if (missing.length === 0) return [];
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const hasApt = spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0;
  if (!hasApt || !isRoot) {
    throw new Error(
      `nginx with nchan is missing (${missing.join(', ')}). ` +
        (hasApt
          ? `Install it with:\n\n    sudo apt-get update && sudo apt-get install -y ${missing.join(' ')}\n`
          : 'apt-get is not available here: install nginx and its nchan module by other means.'),
    );
  }
  log(`fanout: installing ${missing.join(' ')} with apt-get…`);
  // Skip the slow index refresh when the cached one already knows the packages; a fresh machine has none yet.
  if (aptGet(['install', '--no-install-recommends', ...missing]) !== 0) {
    if (aptGet(['update']) !== 0) throw new Error('apt-get update failed');
    if (aptGet(['install', '--no-install-recommends', ...missing]) !== 0)
      throw new Error(`apt-get install ${missing.join(' ')} failed`);
  }
  const still = missingPackages();
  if (still.length > 0) throw new Error(`still missing after apt-get install: ${still.join(', ')}`);
  if (!fs.existsSync(NGINX_BIN) || !fs.existsSync(NCHAN_MODULE))
    throw new Error(`installed, but ${NGINX_BIN} or ${NCHAN_MODULE} is not where Debian puts it`);
  // Debian's package also enables the system nginx (port 80) where systemd runs; the benchmark never uses it.
  log(`fanout: installed ${missing.join(' ')} (the system nginx service it may have started is not used)`);
  return missing;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    ensureNchan();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(1);
  }
}
