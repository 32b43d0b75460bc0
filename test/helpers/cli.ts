import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const LEO_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../bin/leo.js');

/** Runs `leo <args>` to completion, as a user would from a shell. */
export function runLeo(
  args: string[],
  env: NodeJS.ProcessEnv,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [LEO_BIN, ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Runs `leo <args>` without blocking this process: needed whenever the command talks to a daemon running inside the
 * test process, which could not answer while spawnSync held the event loop.
 */
export function runLeoAsync(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [LEO_BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/**
 * Starts `leo daemon` as a child process and resolves once it logs that it is ready, with the port it bound.
 * `fdLimit` starts it under `ulimit -n` (soft and hard), as on a machine whose limit is that low; `prefix` is a command
 * that execs it (`ip netns exec <ns>`: the child is then the daemon itself, for signals).
 */
export function spawnDaemon(
  env: NodeJS.ProcessEnv,
  opts: { fdLimit?: number; prefix?: readonly string[] } = {},
): Promise<{ child: ChildProcess; port: number; output: () => string }> {
  const command = opts.fdLimit
    ? ['sh', '-c', `ulimit -n ${opts.fdLimit} && exec "$0" "$@"`, process.execPath, LEO_BIN, 'daemon']
    : [process.execPath, LEO_BIN, 'daemon'];
  const [cmd, ...args] = [...(opts.prefix ?? []), ...command] as [string, ...string[]];
  const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`daemon did not become ready:\n${out}`)), 20_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /"listen":"[^"]*:(\d+)".*"leo daemon ready"/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, port: Number(m[1]), output: () => out });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited with ${code}:\n${out}`));
    });
  });
}

export function waitForExit(child: ChildProcess, timeoutMs = 15_000): Promise<number | null> {
  // A child killed by a signal has no exit code, only its signal: it has exited all the same.
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('process did not exit')), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
