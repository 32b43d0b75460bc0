import { LeoError } from '../../../core/leo-error.js';
import type { MoveFault, MoveOperation, MoveStep, MoveUndo } from '../../../wire/move.js';

/**
 * A move's (and a copy's) steps as a pure state machine (issue 32): what each report of the I/O does to the operation,
 * and what the I/O does next. The rule it keeps: a failure at any step leaves exactly one agent running, the source
 * again before the target's spawn answered, the target after. Every action it asks for is idempotent and keyed by the
 * operation's id, so the hub, restarted, resumes an operation from its row by doing actionOf() again.
 */

/** What the I/O reports about the operation it is driving. */
export type MoveEvent =
  /** The current step's work finished: the source parked, everything shipped, the target answered its spawn, marked. */
  | { type: 'step_done' }
  /** Part of the shipment arrived on the target. */
  | { type: 'shipped'; bytes_done: number; bytes_total: number }
  | { type: 'fault'; fault: MoveFault; message: string }
  /** The first undo still owed ran. */
  | { type: 'undone'; undo: MoveUndo }
  /** The owner asked for the failed operation again, by its id. */
  | { type: 'retry' };

/** The work the I/O does next: the current step's, or a failed operation's first undo. */
export type MoveAction = 'park_source' | 'ship' | 'spawn_target' | 'mark_source' | MoveUndo;

type ActiveStep = Exclude<MoveStep, 'done' | 'failed'>;

const STEPS: Record<MoveOperation['kind'], readonly ActiveStep[]> = {
  move: ['park', 'ship', 'spawn', 'mark'],
  // A copy leaves its source as it is: nothing to park, nothing to mark.
  copy: ['ship', 'spawn'],
};

const WORK: Record<ActiveStep, MoveAction> = {
  park: 'park_source',
  ship: 'ship',
  spawn: 'spawn_target',
  mark: 'mark_source',
};

/** The sides a step talks to: a fault elsewhere does not stop it (a later step meets it if it lasts). */
const SIDES: Record<ActiveStep, readonly ('source' | 'target')[]> = {
  park: ['source'],
  ship: ['source', 'target'],
  spawn: ['target'],
  // The source's mark, then the target's settle.
  mark: ['source', 'target'],
};

const FAULT_SIDE: Record<MoveFault, 'source' | 'target' | 'hub' | 'step'> = {
  link_cut_source: 'source',
  source_killed: 'source',
  link_cut_target: 'target',
  target_killed: 'target',
  hub_killed: 'hub',
  refused: 'step',
};

/**
 * How a step that failed is undone, in order. Before the spawn the target runs nothing, so the source is started
 * first (the sooner an agent runs again, the better) and the target's files go when it can be reached. A spawn whose
 * answer never came may have started the agent there: the target is cleared first, and only once it said so does the
 * source start, so two never run, at the price of none while the target cannot be reached. A copy never stopped its
 * source: only the target is cleared.
 */
const UNDO: Record<MoveOperation['kind'], Partial<Record<ActiveStep, readonly MoveUndo[]>>> = {
  move: {
    park: ['resume_source'],
    ship: ['resume_source', 'discard_target'],
    spawn: ['discard_target', 'resume_source'],
  },
  copy: { ship: ['discard_target'], spawn: ['discard_target'] },
};

/** An event the operation cannot take where it is (a retry of one still undoing, a step reported twice). */
export class MoveStateError extends LeoError {
  constructor(op: MoveOperation, what: string) {
    super(409, `move ${op.id} is at "${op.step}": ${what}`, 'move_state', { id: op.id, step: op.step });
    this.name = 'MoveStateError';
  }
}

/** A new operation at its first step. */
export function startMove(o: {
  id: string;
  kind: MoveOperation['kind'];
  agent: string;
  to: string;
  as: string;
  force: boolean;
  now: string;
}): MoveOperation {
  return {
    id: o.id,
    kind: o.kind,
    agent: o.agent,
    to: o.to,
    as: o.as,
    force: o.force,
    step: STEPS[o.kind][0]!,
    progress: { bytes_done: 0, bytes_total: null },
    runs: 'source',
    undo: [],
    failure: null,
    attempt: 1,
    created_at: o.now,
    updated_at: o.now,
  };
}

/** What the I/O does next; null once the operation is settled (done, or failed with nothing left to undo). */
export function actionOf(op: MoveOperation): MoveAction | null {
  if (op.step === 'done') return null;
  if (op.step === 'failed') return op.undo[0] ?? null;
  return WORK[op.step];
}

/** The operation after `event`, stamped `now`. Pure: the caller saves it, publishes it, then does actionOf(). */
export function nextMove(op: MoveOperation, event: MoveEvent, now: string): MoveOperation {
  const next = (change: Partial<MoveOperation>): MoveOperation => ({ ...op, ...change, updated_at: now });
  switch (event.type) {
    case 'step_done': {
      const step = activeStep(op, 'a step finished');
      const steps = STEPS[op.kind];
      const following = steps[steps.indexOf(step) + 1] ?? 'done';
      // The target's spawn answered: from here a failure leaves the target running (a copy's source runs anyway).
      const runs = step === 'spawn' && op.kind === 'move' ? 'target' : op.runs;
      return next({ step: following, runs, failure: following === 'done' ? null : op.failure });
    }
    case 'shipped': {
      if (op.step !== 'ship') throw new MoveStateError(op, 'bytes shipped outside the ship step');
      if (event.bytes_done < 0 || event.bytes_total < event.bytes_done)
        throw new MoveStateError(op, `${event.bytes_done} of ${event.bytes_total} bytes is no progress`);
      return next({ progress: { bytes_done: event.bytes_done, bytes_total: event.bytes_total } });
    }
    case 'fault':
      return faulted(op, event.fault, event.message, next);
    case 'undone': {
      if (op.step !== 'failed' || op.undo[0] !== event.undo)
        throw new MoveStateError(op, `"${event.undo}" is not the next undo (${op.undo.join(', ') || 'none'})`);
      return next({ undo: op.undo.slice(1) });
    }
    case 'retry': {
      if (op.step !== 'failed') throw new MoveStateError(op, 'only a failed move is retried');
      if (op.undo.length)
        throw new MoveStateError(op, `it is still being undone (${op.undo.join(', ')}): retry once that is done`);
      return next({
        step: STEPS[op.kind][0]!,
        progress: { bytes_done: 0, bytes_total: null },
        runs: 'source',
        failure: null,
        attempt: op.attempt + 1,
      });
    }
  }
}

function faulted(
  op: MoveOperation,
  fault: MoveFault,
  message: string,
  next: (change: Partial<MoveOperation>) => MoveOperation,
): MoveOperation {
  // Settled, or being undone: an undo that met the fault is simply done again; the first failure stays the reason.
  if (op.step === 'done' || op.step === 'failed') return op;
  const side = FAULT_SIDE[fault];
  // The hub's own restart: the row is where it stopped, and the step's idempotent work is done again from there.
  if (side === 'hub') return next({});
  if (side !== 'step' && !SIDES[op.step].includes(side)) return op;
  const failure = { step: op.step, fault, message };
  // Past the spawn the target runs: the move goes forward, marking the source and settling the target until both answer.
  if (op.runs === 'target') return next({ failure });
  return next({ step: 'failed', failure, undo: [...(UNDO[op.kind][op.step] ?? [])] });
}

function activeStep(op: MoveOperation, what: string): ActiveStep {
  if (op.step === 'done' || op.step === 'failed') throw new MoveStateError(op, what);
  return op.step;
}
