import type { Exec, ExecResult } from '../../../core/exec.js';

/** How long one git or tar run may take: a bundle or an archive of a 1 GiB workspace takes minutes on a slow disk. */
export const LONG_RUN_MS = 600_000;

/**
 * git in `dir` through the exec seam, with the review code's safety rules: pathspecs taken literally, no fsmonitor
 * program run, no optional lock taken (the agent's own git may hold the index). Every path handed to git or tar here is
 * absolute or after `--`, so no workspace name or file name can be read as an option.
 */
export function gitIn(exec: Exec, dir: string) {
  return (args: string[], timeoutMs = 60_000): Promise<ExecResult> =>
    exec('git', ['--literal-pathspecs', '-c', 'core.quotePath=false', '-c', 'core.fsmonitor=false', ...args], {
      cwd: dir,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
      timeoutMs,
    });
}

/** `r`'s stdout, or an error naming the step and the program's first line of complaint. */
export function succeeded(step: string, r: ExecResult): string {
  if (r.code === 0) return r.stdout;
  const why = r.stderr.trim().split('\n')[0] || `exited with ${r.code}`;
  throw new Error(`${step} failed: ${why}`);
}
