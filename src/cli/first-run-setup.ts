import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder bin/, dist/ and native-bins/ sit in: a clone, or the installed package. */
export const PACKAGE_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * The native set-up (native-bins/setup.mjs: the Debian packages Leo needs, whisper-cli) for an installed package,
 * once, at its first `leo daemon`. A clone has `npm start`, which runs scripts/setup.mjs first, so there it is left
 * alone. A failure does not stop the daemon (only voice notes need whisper-cli): it is reported with how to retry,
 * and the stamp keeps a service from retrying a long build at every restart.
 */
export async function firstRunSetup(o: { stateDir: string; log: (line: string) => void }): Promise<void> {
  if (fs.existsSync(path.join(PACKAGE_ROOT, 'scripts', 'setup.mjs'))) return;
  const stamp = path.join(o.stateDir, 'native-setup.json');
  if (fs.existsSync(stamp)) return;
  const script = path.join(PACKAGE_ROOT, 'native-bins', 'setup.mjs');
  o.log(`leo daemon: first run of this install: native set-up (${script}); building whisper-cli takes minutes, once`);
  let error: string | null = null;
  try {
    const { ensureNative } = (await import(script)) as {
      ensureNative(opts: { log: (line: string) => void }): Promise<unknown>;
    };
    await ensureNative({ log: o.log });
  } catch (err) {
    error = (err as Error).message;
    o.log(`leo daemon: native set-up failed (voice notes may be unavailable): ${error}\nretry: node ${script}`);
  }
  fs.mkdirSync(o.stateDir, { recursive: true, mode: 0o700 });
  fs.writeFileSync(stamp, `${JSON.stringify({ at: new Date().toISOString(), error })}\n`);
}
