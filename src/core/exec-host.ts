import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Exec, ExecOptions, ExecResult } from './exec.js';

/** One request to the host process and its answer, over the IPC channel. */
export interface ExecRequest {
  id: number;
  file: string;
  args: readonly string[];
  opts: ExecOptions;
}
export type ExecReply = { id: number; result: ExecResult } | { id: number; error: string; code?: string };

interface Waiting {
  /** The host the request went to: only its own exit fails it. */
  host: ChildProcess;
  resolve(r: ExecResult): void;
  reject(e: Error): void;
}

const CHILD = fileURLToPath(new URL('./exec-host-child.js', import.meta.url));

/**
 * An Exec that starts programs from a small long-lived child process instead of the daemon. Starting a child from
 * the daemon costs its main thread 1.2–2.1 ms of CPU per program and blocks the event loop until the child has
 * exec'd (when tmux ran this way, three per delivery, the soak profiled ~41 % of the main thread in `spawn` and a loop
 * delay p99 of ~370 ms at 50 sends/s; tmux now has a control-mode client of its own). It starts git, which a fleet
 * restoring its worktrees runs in bursts. Here the daemon only writes a message to a pipe; the host, a bare Node
 * process, pays for the fork on its own. The host is started on first use, restarted after it dies (calls in flight
 * then fail, as a program that could not be started does), and killed by close().
 */
export class ExecHost {
  private child: ChildProcess | null = null;
  private readonly pending = new Map<number, Waiting>();
  private nextId = 1;
  private closed = false;

  readonly exec: Exec = (file, args, opts = {}) =>
    new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the exec host is closed'));
      const id = this.nextId++;
      const host = this.host();
      this.settleWith(id, { host, resolve, reject });
      const request: ExecRequest = { id, file, args, opts };
      host.send(request, (err) => {
        if (err) this.settle(id, (w) => w.reject(err));
      });
    });

  close(): void {
    this.closed = true;
    this.child?.kill();
    this.child = null;
  }

  private host(): ChildProcess {
    if (this.child) return this.child;
    const child = fork(CHILD, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'], execArgv: [] });
    child.on('message', (reply: ExecReply) =>
      this.settle(reply.id, (w) =>
        'result' in reply
          ? w.resolve(reply.result)
          : w.reject(Object.assign(new Error(reply.error), reply.code ? { code: reply.code } : {})),
      ),
    );
    child.on('exit', (code, signal) => {
      if (this.child === child) this.child = null;
      const error = new Error(`the exec host exited (${signal ?? code}) before the program finished`);
      for (const [id, w] of [...this.pending]) if (w.host === child) this.settle(id, (x) => x.reject(error));
    });
    // An idle host must never keep the daemon alive (it exits on its own when the IPC channel closes); while calls
    // are in flight the channel is held, as a child started directly would be.
    this.child = child;
    this.hold(false);
    return child;
  }

  private settleWith(id: number, waiting: Waiting): void {
    if (this.pending.size === 0) this.hold(true);
    this.pending.set(id, waiting);
  }

  private settle(id: number, how: (w: Waiting) => void): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    if (this.pending.size === 0) this.hold(false);
    how(waiting);
  }

  /** Whether the host (its process and its channel, so its exit is seen too) keeps this process's loop alive. */
  private hold(on: boolean): void {
    const c = this.child;
    if (on) {
      c?.ref();
      c?.channel?.ref();
    } else {
      c?.unref();
      c?.channel?.unref();
    }
  }
}
