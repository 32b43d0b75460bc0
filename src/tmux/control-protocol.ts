/**
 * tmux control mode (`tmux -C`), the pure half: how a command list is written as one line, and how the lines tmux
 * answers with are cut into one result per command list. tmux answers every command of a line with its own block,
 * `%begin <time> <number> <flags>` … `%end|%error` with the same three fields, stops a line at its first failing
 * command, and interleaves notifications (`%window-add`, `%output`, …) between blocks. Blocks with flags 0 answer
 * commands the control client did not type (the one that started it).
 */
import type { ExecResult } from '../core/exec.js';

/**
 * A word for tmux's command parser that survives a line-based channel: double-quoted, with the characters that are
 * special there (`\`, `"`, `$` for environment expansion) and every control character (a newline would end the
 * line) escaped. Octal escapes carry control characters byte for byte; everything else travels as UTF-8. NUL cannot
 * be carried (tmux's words are C strings), so it is refused.
 */
export function controlWord(value: string): string {
  if (value.includes('\0')) throw new Error('tmux cannot carry a NUL character in a command word');
  const escaped = value.replace(/[\\"$\u0001-\u001f\u007f]/g, (c) =>
    c === '\\' || c === '"' || c === '$' ? `\\${c}` : `\\${c.charCodeAt(0).toString(8).padStart(3, '0')}`,
  );
  return `"${escaped}"`;
}

/** What a command's answer block contributes to the command list's output. */
export type BlockUse = 'output' | 'ignored' | 'buffer';

/** A command list as tmux will see it on the control line, and what each answer block is for. */
export interface ControlPlan {
  line: string;
  blocks: BlockUse[];
}

/**
 * A command list as one control-mode line: each command's words quoted, the commands separated by a bare `;`.
 *
 * `capture-pane -p` is sent as a capture into a buffer of its own (`buffer()` names it), `show-buffer` and
 * `delete-buffer`: tmux 3.3a keeps every `capture-pane -p` answer it writes to a control client (measured: its server
 * grew by ~5.3 KB per capture of a 4.5 KB screen, without bound), while a buffer shown and deleted costs nothing that
 * stays. show-buffer escapes what it prints, so that block is decoded (unvisLines) back to what -p would have printed.
 */
export function planControlLine(commands: readonly (readonly string[])[], buffer: () => string): ControlPlan {
  if (commands.length === 0 || commands.some((c) => c.length === 0)) throw new Error('an empty tmux command');
  const sent: (readonly string[])[] = [];
  const blocks: BlockUse[] = [];
  for (const c of commands) {
    if (c[0] === 'capture-pane' && c.includes('-p')) {
      const name = buffer();
      sent.push(
        c.flatMap((w) => (w === '-p' ? ['-b', name] : [w])),
        ['show-buffer', '-b', name],
        ['delete-buffer', '-b', name],
      );
      blocks.push('ignored', 'buffer', 'ignored');
    } else if (c[0] === 'if-shell') {
      // The branch it runs answers in a block of its own, right after if-shell's empty one. Only as the list's last
      // command, with both branches given: then exactly one more block comes, and a failing branch ends the list.
      if (c !== commands.at(-1) || !c.includes('-F') || c.length < 6)
        throw new Error('if-shell must be the last command of its list, with -F and both branches');
      sent.push(c);
      blocks.push('ignored', 'output');
    } else {
      sent.push(c);
      blocks.push('output');
    }
  }
  return { line: `${sent.map((c) => c.map(controlWord).join(' ')).join(' ; ')}\n`, blocks };
}

const VIS_ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, s: 32, '0': 0 };

/**
 * Undoes show-buffer's escaping (vis(3), C style with octal): `\\`, `\$` and `\"` stand for themselves, `\t` and the
 * other C escapes for their control character, `\ooo` for a byte; the buffer's newlines are the line breaks, so a
 * buffer that ends in one prints a last empty line. Valid UTF-8 is printed as it is.
 */
export function unvisLines(lines: readonly string[]): string {
  const bytes: Buffer[] = [];
  const text = lines.join('\n');
  let last = 0;
  for (const m of text.matchAll(/\\([0-7]{3}|[\\$"abtnvfrs0])/g)) {
    bytes.push(Buffer.from(text.slice(last, m.index), 'utf8'));
    const e = m[1]!;
    const byte = e.length === 3 ? parseInt(e, 8) : (VIS_ESCAPES[e] ?? e.charCodeAt(0));
    bytes.push(Buffer.from([byte]));
    last = m.index + m[0].length;
  }
  bytes.push(Buffer.from(text.slice(last), 'utf8'));
  return Buffer.concat(bytes).toString('utf8');
}

const GUARD = /^%(begin|end|error) (\d+) (\d+) (\d+)$/;

export type ControlEvent =
  /** A command the client typed finished: its output lines, and whether it failed (%error). */
  | { kind: 'block'; lines: string[]; failed: boolean }
  /** tmux said the client is leaving (its session or server is gone, or its input closed). */
  | { kind: 'exit'; reason: string }
  /** A line that fits no block: the stream can no longer be trusted to pair answers with commands. */
  | { kind: 'desync'; line: string };

/**
 * Cuts tmux's control-mode output into events. Lines inside a block are output whatever they look like, except the
 * guard that closes it, which must repeat the opening guard's number: a pane showing a `%end` line of its own cannot
 * close a capture early without also knowing that number.
 */
export class ControlParser {
  private open: { number: string; flags: string; lines: string[] } | null = null;
  private partial = '';

  constructor(private readonly emit: (e: ControlEvent) => void) {}

  /** Feeds a chunk of tmux's stdout (already decoded as UTF-8; lines may be split across chunks). */
  push(chunk: string): void {
    const text = this.partial + chunk;
    const lines = text.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    const guard = GUARD.exec(line);
    if (this.open) {
      if (guard && guard[1] !== 'begin' && guard[3] === this.open.number) {
        const { flags, lines } = this.open;
        this.open = null;
        if (flags !== '0') this.emit({ kind: 'block', lines, failed: guard[1] === 'error' });
      } else {
        this.open.lines.push(line);
      }
      return;
    }
    if (guard?.[1] === 'begin') this.open = { number: guard[3]!, flags: guard[4]!, lines: [] };
    else if (line === '%exit' || line.startsWith('%exit ')) this.emit({ kind: 'exit', reason: line.slice(6) });
    else if (!line.startsWith('%')) this.emit({ kind: 'desync', line });
  }
}

/**
 * Folds the blocks that answer one command list into what a tmux process would have returned for it: the outputs
 * on stdout, the failing command's message on stderr with code 1. Returns null while more blocks are due.
 */
export class ListAnswer {
  private out = '';
  private next = 0;

  constructor(private readonly blocks: readonly BlockUse[]) {}

  add(block: { lines: string[]; failed: boolean }): ExecResult | null {
    if (block.failed) return { code: 1, stdout: this.out, stderr: asPrinted(block.lines) };
    const use = this.blocks[this.next++];
    if (use === 'output') this.out += asPrinted(block.lines);
    else if (use === 'buffer') this.out += unvisLines(block.lines);
    return this.next === this.blocks.length ? { code: 0, stdout: this.out, stderr: '' } : null;
  }
}

/** Lines as a program prints them: each ends with a newline. */
const asPrinted = (ls: readonly string[]) => ls.map((l) => `${l}\n`).join('');
