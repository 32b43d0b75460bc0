import { execFile } from 'node:child_process';

export interface ExecResult {
  code: number;
  stdout: string;
  stderr: string;
  /**
   * The program wrote more than MAX_OUTPUT_BYTES and was stopped there (code -1): stdout holds what came before. A
   * caller that can use a part (a diff it caps anyway) does; any other treats it as the failure it is.
   */
  truncated?: true;
}

/** What one run may print before it is stopped (execFile's maxBuffer, per stream). */
export const MAX_OUTPUT_BYTES = 16 * 1024 * 1024;

export interface ExecOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** Written to the program's stdin, which is then closed (tmux `load-buffer -` reads a paste from it). */
  input?: string;
}

/**
 * The exec seam: every external program (tmux above all) is run through one of these, so unit tests can answer with
 * recorded output and integration tests with the real program. It never rejects for a non-zero exit; the caller
 * decides what a code means. It rejects only when the program cannot be started at all.
 */
export type Exec = (file: string, args: readonly string[], opts?: ExecOptions) => Promise<ExecResult>;

export const realExec: Exec = (file, args, opts = {}) =>
  new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args as string[],
      { env: opts.env, cwd: opts.cwd, timeout: opts.timeoutMs ?? 10_000, maxBuffer: MAX_OUTPUT_BYTES },
      (err, stdout, stderr) => {
        if (err?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER')
          return resolve({ code: -1, stdout: String(stdout), stderr: String(stderr), truncated: true });
        if (err && typeof err.code === 'string') return reject(err);
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout: String(stdout), stderr: String(stderr) });
      },
    );
    if (opts.input !== undefined) {
      // A program that exits without reading all of its input makes the pipe error with EPIPE; its exit code says
      // what happened, so the write error itself is not news.
      child.stdin?.on('error', () => {});
      child.stdin?.end(opts.input);
    }
  });
