import { execFile } from 'node:child_process';

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface ExecOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * The exec seam: every external program (tmux above all) is run through one of these, so unit tests can answer with
 * recorded output and integration tests with the real program. It never rejects for a non-zero exit; the caller
 * decides what a code means. It rejects only when the program cannot be started at all.
 */
export type Exec = (file: string, args: readonly string[], opts?: ExecOptions) => Promise<ExecResult>;

export const realExec: Exec = (file, args, opts = {}) =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      args as string[],
      { env: opts.env, cwd: opts.cwd, timeout: opts.timeoutMs ?? 10_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err && typeof err.code === 'string') return reject(err);
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
  });
