import { formatBytes } from '../hosts/move/workspace/measure.js';
import type { MoveOperation } from '../wire/move.js';

const DOING: Record<MoveOperation['step'], string> = {
  park: 'parking the agent',
  ship: 'shipping',
  spawn: 'starting it on the target',
  mark: 'marking the source',
  done: 'done',
  failed: 'failed',
};

/** One line of a move's or copy's progress as `leo agent move|copy` prints it (a new line when it changes). */
export function progressLine(op: MoveOperation): string {
  const head = `${op.kind} ${op.agent} → ${op.as}@${op.to}`;
  const { bytes_done, bytes_total } = op.progress;
  if (op.step === 'ship' && bytes_total !== null) {
    const pct = bytes_total === 0 ? 100 : Math.floor((bytes_done / bytes_total) * 100);
    return `${head}: shipping ${formatBytes(bytes_done)} of ${formatBytes(bytes_total)} (${pct}%)`;
  }
  if (op.step === 'failed') {
    const why = op.failure ? ` at ${op.failure.step} (${op.failure.fault}): ${op.failure.message}` : '';
    const undoing = op.undo.length ? `; undoing: ${op.undo.join(', ')}` : '';
    return `${head}: failed${why}${undoing}`;
  }
  // Past the spawn a fault does not fail the move: the source's mark is tried again until it answers.
  const trying = op.failure ? ` (trying again: ${op.failure.message})` : '';
  return `${head}: ${DOING[op.step]}${trying}`;
}

/** Settled: done, or failed with its undo finished (a retry by id is then possible). */
export const settled = (op: MoveOperation): boolean =>
  op.step === 'done' || (op.step === 'failed' && op.undo.length === 0);
