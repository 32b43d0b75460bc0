import { randomBytes } from 'node:crypto';
import { realExec, type Exec, type ExecResult } from '../core/exec.js';
import { planCaptureBatches, splitCaptureBatch } from './capture-batch.js';
import { CONTROL_SESSION, TmuxControlClient } from './control-client.js';
import { tmuxFormatLiteral, tmuxWord } from './escape.js';
import { inertText } from './inert-text.js';
import { LIST_SESSIONS_FORMAT, parseListSessions, type SessionInfo } from './list-format.js';
import { shellQuoteArgv } from './shell-quote.js';
import { execTransport, type TmuxCommand, type TmuxTransport } from './transport.js';

export type { SessionInfo };

export interface TmuxOptions {
  /** Leo's own server socket; the user's default server is never touched. */
  socketPath: string;
  /** A tmux process per call through this seam (default: the real one)... */
  exec?: Exec;
  /** ...or every call over one long-lived control-mode client, for a process that calls tmux many times a second. */
  control?: boolean;
  tmuxBin?: string;
  /** Per tmux invocation. */
  timeoutMs?: number;
  historyLimit?: number;
}

export interface NewSessionOptions {
  name: string;
  cwd: string;
  /** The program and its arguments, exactly as the program should receive them. */
  command: readonly string[];
  env?: Record<string, string>;
  width?: number;
  height?: number;
}

export class TmuxError extends Error {
  constructor(
    readonly command: string,
    readonly code: number,
    readonly stderr: string,
  ) {
    super(`tmux ${command} failed (exit ${code}): ${stderr.trim() || 'no output'}`);
    this.name = 'TmuxError';
  }
}

/**
 * Session names Leo creates: tmux rewrites `.` and `:` in names and reads them as target separators, expands `#` in
 * some arguments, and a leading `-` would read as an option, so only a plain alphabet is accepted.
 */
const SESSION_NAME = /^[A-Za-z0-9_@+][A-Za-z0-9_@+-]{0,127}$/;

export function assertSessionName(name: string): void {
  if (!SESSION_NAME.test(name)) throw new Error(`invalid tmux session name: ${JSON.stringify(name)}`);
}

/** tmux's answers for "nothing listens on that socket": no server means no sessions, not a failure. */
export function isNoServer(stderr: string): boolean {
  return /no server running|error connecting to/i.test(stderr);
}

/**
 * tmux's answers for "that session is not there". `no current target` comes from a server that is exiting because its
 * last session just ended: killing twice in a row (stop, then start) can meet it.
 */
function isNoSession(stderr: string): boolean {
  return /can't find session|session not found|no current target/i.test(stderr);
}

/** Whether a tmux call failed because its session (or the whole server) is gone, not for another reason. */
export function isSessionGone(err: unknown): boolean {
  return err instanceof TmuxError && (isNoSession(err.stderr) || isNoServer(err.stderr));
}

/** `=name` matches the session exactly; a bare name would also match any session it is a prefix of. */
function sessionTarget(name: string): string {
  assertSessionName(name);
  return `=${name}`;
}

/** The session's current window's active pane (a bare `=name` is read as a pane title for pane targets). */
function paneTarget(name: string): string {
  return `${sessionTarget(name)}:`;
}

function envArgs(env: Record<string, string> | undefined): string[] {
  const out: string[] = [];
  for (const [k, v] of Object.entries(env ?? {})) {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k)) throw new Error(`invalid environment variable name: ${JSON.stringify(k)}`);
    out.push('-e', `${k}=${v}`);
  }
  return out;
}

/**
 * The pane's command. tmux runs a single-string command with the user's default-shell (which may be fish or
 * anything else), so the argv is handed to /bin/sh explicitly, POSIX-quoted, and `exec` makes the program itself the
 * pane's process: pane_pid is the agent and pane_dead_status is its own exit status.
 *
 * tmux 3.3a's new-session ignores `-e PATH=…` (the pane inherits the client's PATH), so a PATH the agent's
 * environment sets is applied by the pane's shell itself before the program is looked up.
 */
function paneCommand(argv: readonly string[], env: Record<string, string> | undefined): string[] {
  const path = env?.PATH === undefined ? '' : `PATH=${shellQuoteArgv([env.PATH])}; export PATH; `;
  return ['--', '/bin/sh', '-c', `${path}exec ${shellQuoteArgv(argv)}`];
}

function dimension(value: number | undefined, fallback: number): string {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 1 || v > 10_000) throw new Error(`invalid pane dimension: ${v}`);
  return String(v);
}

/** Leo's private tmux server, driven only through its transport (the exec seam, or one control-mode client). */
export class Tmux {
  readonly socketPath: string;
  private readonly transport: TmuxTransport;
  private readonly historyLimit: number;

  constructor(opts: TmuxOptions) {
    this.socketPath = opts.socketPath;
    this.historyLimit = opts.historyLimit ?? 5000;
    const how = {
      bin: opts.tmuxBin ?? 'tmux',
      // -f /dev/null: a user's ~/.tmux.conf must not change how Leo's server behaves.
      prefix: ['-S', this.socketPath, '-f', '/dev/null'],
      // TMUX is dropped so a daemon started from inside tmux cannot have its commands resolve against the user's
      // session. Built once: copying process.env per call was a tenth of the soak's main thread.
      env: { ...process.env, TMUX: undefined, TMUX_PANE: undefined },
      timeoutMs: opts.timeoutMs ?? 10_000,
    };
    this.transport = opts.control ? new TmuxControlClient(how) : execTransport({ ...how, exec: opts.exec ?? realExec });
  }

  /** Ends the control client, if there is one (the server and its sessions stay). */
  close(): void {
    this.transport.close?.();
  }

  /**
   * Starts a detached session running `command`. The server options ride in the same invocation, ahead of
   * new-session, so they hold from the pane's first instant: even a command that exits at once leaves a dead pane
   * whose status can be read. They are global because every session on this server is an agent.
   */
  async newSession(o: NewSessionOptions): Promise<void> {
    assertSessionName(o.name);
    await this.runPrivate('new-session', [
      ...this.serverOptions(),
      [
        'new-session',
        '-d',
        '-s',
        o.name,
        '-c',
        tmuxFormatLiteral(o.cwd),
        '-x',
        dimension(o.width, 200),
        '-y',
        dimension(o.height, 50),
        ...envArgs(o.env),
        ...paneCommand(o.command, o.env),
      ],
    ]);
  }

  async hasSession(name: string): Promise<boolean> {
    const r = await this.transport.run([['has-session', '-t', sessionTarget(name)]]);
    return r.code === 0;
  }

  /** Returns whether the session existed. */
  async killSession(name: string): Promise<boolean> {
    const r = await this.transport.run([['kill-session', '-t', sessionTarget(name)]]);
    if (r.code === 0) return true;
    if (isNoSession(r.stderr) || isNoServer(r.stderr)) return false;
    throw new TmuxError('kill-session', r.code, r.stderr);
  }

  async renameSession(from: string, to: string): Promise<void> {
    assertSessionName(to);
    await this.check('rename-session', [['rename-session', '-t', sessionTarget(from), '--', to]]);
  }

  /**
   * Every session with its activity and pane state, in one tmux call; [] when no server is running. The control
   * client's own session is Leo's plumbing, not a session anyone started, so it is not listed.
   */
  async listSessions(): Promise<SessionInfo[]> {
    const r = await this.transport.run([['list-sessions', '-F', LIST_SESSIONS_FORMAT]]);
    if (r.code !== 0) {
      if (isNoServer(r.stderr)) return [];
      throw new TmuxError('list-sessions', r.code, r.stderr);
    }
    return parseListSessions(r.stdout).filter((s) => s.name !== CONTROL_SESSION);
  }

  /** The visible screen plus up to `lines` lines of history, wrapped lines joined, without escape sequences. */
  async capturePane(name: string, lines = 50): Promise<string> {
    if (!Number.isInteger(lines) || lines < 0) throw new Error(`invalid line count: ${lines}`);
    const r = await this.check('capture-pane', [
      ['capture-pane', '-p', '-J', '-t', paneTarget(name), '-S', `-${lines}`],
    ]);
    return r.stdout;
  }

  /**
   * capturePane for many sessions in as few tmux calls as fit (one, for up to about a hundred), keyed by session. A
   * session whose capture failed (it ended since it was listed) is absent; the others are still captured.
   */
  async capturePanes(names: readonly string[], lines = 50): Promise<Map<string, string>> {
    if (!Number.isInteger(lines) || lines < 0) throw new Error(`invalid line count: ${lines}`);
    const out = new Map<string, string>();
    let rest = [...names];
    while (rest.length > 0) {
      const nonce = randomBytes(8).toString('hex');
      const [batch] = planCaptureBatches(rest, lines, nonce, paneTarget);
      if (!batch) break;
      const r = await this.transport.run(batch.commands);
      const { captures, failed } = splitCaptureBatch(r.stdout, nonce, r.code === 0);
      for (const [i, text] of captures) out.set(rest[i]!, text);
      if (r.code === 0) rest = rest.slice(batch.indexes.length);
      else if (failed !== null) rest = rest.slice(failed + 1);
      else if (isNoServer(r.stderr)) break;
      else throw new TmuxError('capture-pane', r.code, r.stderr);
    }
    return out;
  }

  /**
   * Pastes `text` into the pane as one paste, through a buffer of its own (concurrent pastes never pick up each
   * other's text) that paste-buffer -d removes. The text never rides a command line: over the control client it is a
   * word on its stdin; over tmux processes it travels on load-buffer's stdin (no argv or tmux message size limit).
   * Every paste into an agent's pane goes through here, so this is where the text is made inert (inertText): no
   * control character in it reaches the program as a key, an embedded end-of-paste marker included.
   * `bracketed` (default true) wraps it in bracketed-paste markers when the program asked for them.
   */
  async pasteText(name: string, raw: string, opts: { bracketed?: boolean } = {}): Promise<void> {
    const text = inertText(raw);
    if (text === '') return;
    const buffer = `leo-paste-${randomBytes(8).toString('hex')}`;
    const paste = [
      'paste-buffer',
      ...(opts.bracketed === false ? [] : ['-p']),
      '-d',
      '-b',
      buffer,
      '-t',
      paneTarget(name),
    ];
    // tmux 3.3a's whole server exits when a buffer is pasted into a dead pane (an agent whose program just ended,
    // before the supervisor's sweep saw it): the server pastes only into a live pane, and otherwise keeps the buffer,
    // which is how Leo learns the paste was skipped (a paste's -d deletes it).
    const target = paneTarget(name);
    const skip = ['set-option', '-p', '-t', target, '@leo-paste-skipped', '1'];
    const guarded = [
      'if-shell',
      '-F',
      '-t',
      target,
      '#{pane_dead}',
      skip.map(tmuxWord).join(' '),
      paste.map(tmuxWord).join(' '),
    ];
    const r = this.transport.private
      ? await this.transport.run([['set-buffer', '-b', buffer, '--', text], guarded])
      : await this.transport.run([['load-buffer', '-b', buffer, '-'], guarded], text);
    const left = await this.transport.run([['delete-buffer', '-b', buffer]]);
    if (r.code !== 0) throw new TmuxError('paste-buffer', r.code, r.stderr);
    if (left.code === 0)
      throw new TmuxError('paste-buffer', 1, `the program in ${name}'s pane has exited: nothing was pasted`);
  }

  /**
   * The visible pane as drawn, colours and attributes kept as SGR sequences (`-e`), with its size and cursor: what a
   * terminal view redraws. One tmux call, so the size, cursor and rows are of the same instant.
   */
  async captureScreen(
    name: string,
  ): Promise<{ cols: number; rows: number; cursor: { x: number; y: number }; ansi: string }> {
    const target = paneTarget(name);
    const r = await this.check('capture-pane', [
      ['display-message', '-p', '-t', target, '#{pane_width} #{pane_height} #{cursor_x} #{cursor_y}'],
      ['capture-pane', '-p', '-e', '-t', target],
    ]);
    const nl = r.stdout.indexOf('\n');
    const [cols = 0, rows = 0, x = 0, y = 0] = r.stdout.slice(0, nl).trim().split(' ').map(Number);
    return { cols, rows, cursor: { x, y }, ansi: r.stdout.slice(nl + 1).replace(/\n$/, '') };
  }

  /** Presses named keys (tmux key names: `Down`, `Enter`, …), one send-keys call. */
  async sendKeys(name: string, keys: readonly string[]): Promise<void> {
    for (const k of keys)
      if (!/^[A-Za-z0-9-]{1,16}$/.test(k)) throw new Error(`invalid key name: ${JSON.stringify(k)}`);
    await this.check('send-keys', [['send-keys', '-t', paneTarget(name), ...keys]]);
  }

  async sendEnter(name: string): Promise<void> {
    await this.check('send-keys', [['send-keys', '-t', paneTarget(name), 'Enter']]);
  }

  /**
   * The line the pane's cursor is on, as displayed: where a program that echoes its input shows what was typed. One
   * tmux call, and with `thenEnter` Enter is pressed in the same call (a delivery's first press).
   */
  async cursorLine(name: string, opts: { thenEnter?: boolean } = {}): Promise<string> {
    const target = paneTarget(name);
    const r = await this.check('capture-pane', [
      ['display-message', '-p', '-t', target, '#{cursor_y}'],
      // Lines as displayed (no -J), so the cursor's row indexes them.
      ['capture-pane', '-p', '-t', target],
      ...(opts.thenEnter ? [['send-keys', '-t', target, 'Enter']] : []),
    ]);
    const [y, ...screen] = r.stdout.split('\n');
    return screen[Number(y)] ?? '';
  }

  async killServer(): Promise<void> {
    const r = await this.transport.run([['kill-server']]);
    if (r.code !== 0 && !isNoServer(r.stderr)) throw new TmuxError('kill-server', r.code, r.stderr);
  }

  private serverOptions(): string[][] {
    return [
      ['set-option', '-g', 'history-limit', String(this.historyLimit)],
      ['set-option', '-gw', 'remain-on-exit', 'on'],
      // The server outlives its last session, so stopping the only agent and starting it again never races a
      // server that is shutting down.
      ['set-option', '-s', 'exit-empty', 'off'],
    ];
  }

  /**
   * Runs commands that carry an agent's environment (its token, its environments' secrets), never in argv, where
   * `ps` shows them to every local user while tmux runs: the control client's commands never are; to a tmux process
   * they go as a command file on stdin. tmux drops a file it cannot parse without a word, so the file's last command
   * prints a nonce: no nonce, no success.
   */
  private async runPrivate(what: string, commands: readonly TmuxCommand[]): Promise<void> {
    if (this.transport.private) {
      await this.check(what, commands);
      return;
    }
    const nonce = `leo-ok-${randomBytes(8).toString('hex')}`;
    const script = [...commands, ['display-message', '-p', nonce]].map((c) => c.map(tmuxWord).join(' ')).join(' ; ');
    const r = await this.transport.run([['start-server'], ['source-file', '-']], `${script}\n`);
    if (r.code !== 0 || !r.stdout.includes(nonce))
      throw new TmuxError(what, r.code, r.stderr || 'tmux did not run the commands');
  }

  private async check(what: string, commands: readonly TmuxCommand[]): Promise<ExecResult> {
    const r = await this.transport.run(commands);
    if (r.code !== 0) throw new TmuxError(what, r.code, r.stderr);
    return r;
  }
}
