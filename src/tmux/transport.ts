import type { Exec, ExecResult } from '../core/exec.js';

/** One tmux command: its name and arguments, exactly as tmux should receive them. */
export type TmuxCommand = readonly string[];

/**
 * How Tmux reaches its server. A command list runs as one unit: tmux stops at the first failing command, and the
 * result reads as a tmux process's would (stdout of the commands that ran, the failure's message on stderr).
 */
export interface TmuxTransport {
  /**
   * Whether command words stay off every command line. When they do, secrets and texts of any length ride as plain
   * arguments; when they do not, they must travel on `input` (a `-` argument's standard input).
   */
  readonly private: boolean;
  run(commands: readonly TmuxCommand[], input?: string): Promise<ExecResult>;
  /** Ends what the transport keeps running between calls, if anything. */
  close?(): void;
}

export interface ExecTransportOptions {
  exec: Exec;
  bin: string;
  /** Arguments every invocation starts with (the socket, no config file). */
  prefix: readonly string[];
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** A tmux process per command list, through the exec seam (the sweep's pool thread, and unit tests' recordings). */
export function execTransport(o: ExecTransportOptions): TmuxTransport {
  return {
    private: false,
    run: (commands, input) =>
      o.exec(o.bin, [...o.prefix, ...commands.flatMap((c, i) => (i === 0 ? c : [';', ...c]))], {
        env: o.env,
        timeoutMs: o.timeoutMs,
        ...(input !== undefined ? { input } : {}),
      }),
  };
}
