import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * native-bins/bin, where `native-bins/setup.mjs` builds whisper-cli (from dist/src/native/ it is three levels up).
 * LEO_NATIVE_BIN_DIR points elsewhere, for packagers who install the programs in their own place.
 */
export function nativeBinDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.LEO_NATIVE_BIN_DIR || path.resolve(new URL('../../../native-bins/bin', import.meta.url).pathname);
}

export interface ResolvedProgram {
  path: string | null;
  /** Where the path came from, for messages: the config key, native-bins, or PATH. */
  source: string;
}

/** First executable named `name` on PATH. */
export function findOnPath(name: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; keep looking
    }
  }
  return null;
}

/** ffprobe (which judges whether an attachment is audio) beside a configured chat.ffmpeg; else found as ffmpeg is. */
export const ffprobeBeside = (ffmpeg: string | undefined): string | undefined =>
  ffmpeg ? path.join(path.dirname(ffmpeg), 'ffprobe') : undefined;

/**
 * Resolves a native program: an explicit config path wins (and is reported missing rather than silently replaced
 * when it does not exist), then the copy built into native-bins/, then PATH.
 */
export function resolveProgram(
  name: string,
  configured: string | undefined,
  configKey: string,
  envPath?: string,
): ResolvedProgram {
  if (configured)
    return { path: fs.existsSync(configured) ? configured : null, source: `${configKey} (${configured})` };
  const bundled = path.join(nativeBinDir(), name);
  if (fs.existsSync(bundled)) return { path: bundled, source: 'native-bins' };
  return { path: findOnPath(name, envPath), source: 'PATH' };
}

/**
 * A program's answer to its version flags, by what identifies the file on disk: a daemon asks at every start and again
 * for status calls, and ffmpeg or whisper-cli spend tens of milliseconds of CPU loading their libraries to answer the
 * same line. A program replaced (an upgrade) has a new inode or mtime and is asked again; a failed run is not kept.
 */
const answers = new Map<string, { ok: boolean; output: string }>();

/** Runs a program briefly and reports whether it started and exited 0, with its first output line. */
export async function probe(
  file: string,
  args: string[],
  timeoutMs = 10_000,
): Promise<{ ok: boolean; output: string }> {
  const key = identity(file, args);
  const known = key && answers.get(key);
  if (known) return known;
  const run = await new Promise<{ ok: boolean; output: string }>((resolve) => {
    execFile(file, args, { timeout: timeoutMs }, (err, stdout, stderr) => {
      const output = (`${stdout}${stderr}`.split('\n').find((l) => l.trim()) ?? '').replace(/\s+Copyright.*$/, '');
      resolve({ ok: !err, output: output.trim() });
    });
  });
  if (key && run.ok) answers.set(key, run);
  return run;
}

function identity(file: string, args: string[]): string | null {
  try {
    const st = fs.statSync(file);
    return JSON.stringify([fs.realpathSync(file), st.dev, st.ino, st.size, st.mtimeMs, args]);
  } catch {
    return null;
  }
}
