/**
 * Many capture-panes in one tmux invocation. Forking a tmux client per capture dominates the sweep's cost once a
 * fleet is busy, so captures are chained with `;`, each preceded by a `display-message -p` marker line that carries a
 * per-call random nonce (pane text cannot forge it) and the capture's index. Pure: building the arguments and
 * splitting the output are tested without tmux.
 */

/** tmux refuses a command list whose packed arguments exceed its message size (16 KiB); stay well below. */
export const MAX_BATCH_BYTES = 12_000;

export interface CaptureBatch {
  /** Indexes into the names handed to planCaptureBatches. */
  indexes: number[];
  commands: string[][];
}

/**
 * Splits the captures into invocations that each fit tmux's message size. `target` turns a session name into its pane
 * target.
 */
export function planCaptureBatches(
  names: readonly string[],
  lines: number,
  nonce: string,
  target: (name: string) => string,
): CaptureBatch[] {
  const batches: CaptureBatch[] = [];
  let current: CaptureBatch = { indexes: [], commands: [] };
  let bytes = 0;
  names.forEach((name, i) => {
    const commands = [
      ['display-message', '-p', `${nonce}:${i}`],
      ['capture-pane', '-p', '-J', '-t', target(name), '-S', `-${lines}`],
    ];
    const size = commands.flat().reduce((n, a) => n + Buffer.byteLength(a) + 1, 4);
    if (current.indexes.length > 0 && bytes + size > MAX_BATCH_BYTES) {
      batches.push(current);
      current = { indexes: [], commands: [] };
      bytes = 0;
    }
    current.commands.push(...commands);
    current.indexes.push(i);
    bytes += size;
  });
  if (current.indexes.length > 0) batches.push(current);
  return batches;
}

/**
 * Splits a batch's stdout into each capture's text, by index. tmux stops a command list at the first failing
 * command, so when the call failed the capture after the last marker printed is the one that failed (`failed`), the
 * ones before it are complete, and the ones after it never ran.
 */
export function splitCaptureBatch(
  stdout: string,
  nonce: string,
  ok: boolean,
): { captures: Map<number, string>; failed: number | null } {
  const captures = new Map<number, string[]>();
  let current: string[] | null = null;
  let last: number | null = null;
  const lines = stdout.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const prefix = `${nonce}:`;
  for (const line of lines) {
    if (line.startsWith(prefix) && /^\d+$/.test(line.slice(prefix.length))) {
      last = Number(line.slice(prefix.length));
      current = [];
      captures.set(last, current);
    } else current?.push(line);
  }
  const out = new Map<number, string>();
  for (const [i, text] of captures) if (ok || i !== last) out.set(i, text.length ? `${text.join('\n')}\n` : '');
  return { captures: out, failed: ok ? null : last };
}
