import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { ExecResult } from '../core/exec.js';
import { ControlParser, ListAnswer, planControlLine, type ControlEvent, type ControlPlan } from './control-protocol.js';
import type { TmuxCommand, TmuxTransport } from './transport.js';

/**
 * The session the control client sits in. A control client needs a session to stay connected; this one runs a
 * process that never prints, so no pane output reaches the client. It does not start with `leo-`, so it is never
 * read as an agent's (agentOfSession), and Tmux.listSessions leaves it out.
 */
export const CONTROL_SESSION = '_leo-control';

export interface ControlClientOptions {
  bin: string;
  /** Arguments every tmux invocation starts with (the socket, no config file). */
  prefix: readonly string[];
  env: NodeJS.ProcessEnv;
  /** How long one command list may take before the client is judged stuck and restarted. */
  timeoutMs: number;
}

interface Waiting {
  answer: ListAnswer;
  /** The list kills the server: its client is ending, so the call after it must not be written to it. */
  killsServer: boolean;
  resolve(r: ExecResult): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout;
}

/**
 * Runs tmux commands over one long-lived control-mode client (`tmux -C`) instead of a tmux process per call: each
 * delivery is three tmux calls, and starting a process for each (fork, exec, connect) was what capped how many sends a
 * second the soak's two cores took in. Command lists are written to the client's stdin, never a command line, so the
 * transport is private. tmux runs a client's commands in order, so answers pair with requests first in, first out.
 * The client starts on first use and again after it exits (the server was killed, its session ended); anything that
 * breaks the pairing (a timeout, a line outside a block) restarts it and fails what was in flight.
 */
export class TmuxControlClient implements TmuxTransport {
  readonly private = true;
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly waiting: Waiting[] = [];
  private closed = false;
  /** Names this client's capture buffers apart from any other client's (a buffer outlives a client that dies). */
  private readonly nonce = randomBytes(4).toString('hex');
  private captures = 0;

  constructor(private readonly o: ControlClientOptions) {}

  run(commands: readonly TmuxCommand[], input?: string): Promise<ExecResult> {
    return new Promise((resolve, reject) => {
      if (input !== undefined)
        return reject(new Error('the control client carries no standard input: pass the text as a word'));
      if (this.closed) return reject(new Error('the tmux control client is closed'));
      let plan: ControlPlan;
      try {
        plan = planControlLine(commands, () => `leo-capture-${this.nonce}-${this.captures++}`);
      } catch (err) {
        return reject(err as Error);
      }
      const child = this.client();
      const timer = setTimeout(
        () => this.reset(child, `tmux did not answer within ${this.o.timeoutMs} ms`),
        this.o.timeoutMs,
      );
      if (this.waiting.length === 0) this.hold(child, true);
      const killsServer = commands.some((c) => c[0] === 'kill-server');
      this.waiting.push({ answer: new ListAnswer(plan.blocks), killsServer, resolve, reject, timer });
      child.stdin.write(plan.line);
    });
  }

  close(): void {
    this.closed = true;
    const child = this.child;
    if (child) this.reset(child, 'the tmux control client is closed');
  }

  private client(): ChildProcessWithoutNullStreams {
    if (this.child) return this.child;
    const child = spawn(
      this.o.bin,
      [
        ...this.o.prefix,
        '-C',
        'new-session',
        '-A',
        '-s',
        CONTROL_SESSION,
        '--',
        '/bin/sh',
        '-c',
        'exec sleep infinity',
      ],
      { env: this.o.env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    this.child = child;
    const parser = new ControlParser((e) => this.onEvent(child, e));
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => parser.push(chunk));
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-2000)));
    // A write after tmux has gone fails with EPIPE; the exit that follows is what fails the calls.
    child.stdin.on('error', () => {});
    child.on('error', (err) => this.drop(child, (w) => w.reject(err)));
    child.on('exit', (code, signal) =>
      this.reset(child, `the tmux control client exited (${signal ?? code}) ${stderr}`),
    );
    this.hold(child, false);
    return child;
  }

  private onEvent(child: ChildProcessWithoutNullStreams, e: ControlEvent): void {
    if (child !== this.child) return;
    if (e.kind === 'exit') return this.reset(child, `tmux ended the control client${e.reason ? `: ${e.reason}` : ''}`);
    const head = this.waiting[0];
    if (e.kind === 'desync' || !head)
      return this.reset(child, `tmux's control stream went out of step at ${JSON.stringify(e)}`);
    const result = head.answer.add(e);
    if (!result) return;
    this.waiting.shift();
    clearTimeout(head.timer);
    if (this.waiting.length === 0) this.hold(child, false);
    head.resolve(result);
    if (head.killsServer) this.reset(child, 'the tmux server was killed');
  }

  /**
   * Ends a client that can no longer be trusted and answers every call in flight as a failed tmux run (so callers
   * read it as they read any tmux failure); the next call starts a new client.
   */
  private reset(child: ChildProcessWithoutNullStreams, why: string): void {
    this.drop(child, (w) => w.resolve({ code: 1, stdout: '', stderr: `${why.trim()}\n` }));
  }

  private drop(child: ChildProcessWithoutNullStreams, how: (w: Waiting) => void): void {
    if (this.child !== child) return;
    this.child = null;
    child.stdin.end();
    child.kill();
    for (const w of this.waiting.splice(0)) {
      clearTimeout(w.timer);
      how(w);
    }
  }

  /** An idle client must never keep the daemon alive; while calls are in flight it does, as a tmux process would. */
  private hold(child: ChildProcessWithoutNullStreams, on: boolean): void {
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as { ref(): void; unref(): void }[])
      if (on) handle.ref();
      else handle.unref();
  }
}
