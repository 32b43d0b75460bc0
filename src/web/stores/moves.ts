import { signal } from '@preact/signals';
import type { MoveOperation } from '../../wire/move.js';
import type { FleetEvent } from '../api/events.js';

/**
 * A hub's moves and copies of agents (issue 32) as move_progress carries them: the newest operation per source agent
 * (its address as the hub names it), whoever started it. Patched by events only; a reconnect reads what it missed of
 * the ones still under way, once.
 */
export const moves = signal<ReadonlyMap<string, MoveOperation>>(new Map());

/** Whether the hub moves agents: its hello advertises agent_move (an older hub has no such routes). */
export const movesOffered = signal(false);

/** Operations started from this page: a move that finishes takes the owner to the agent's new address, once. */
const startedHere = new Set<string>();

/** ULIDs sort by creation, so a later operation of the same agent replaces an earlier one, never the reverse. */
const isNewer = (op: MoveOperation, held: MoveOperation) =>
  op.id === held.id ? op.updated_at >= held.updated_at : op.id > held.id;

export function putMove(op: MoveOperation): void {
  const held = moves.value.get(op.agent);
  if (held && !isNewer(op, held)) return;
  const next = new Map(moves.value);
  next.set(op.agent, op);
  moves.value = next;
}

export function applyMoveEvent(e: FleetEvent): void {
  if (e.type === 'move_progress') putMove(e.data.move);
}

/** An operation this page started (the route's 202, or a retry's). */
export function trackMove(op: MoveOperation): void {
  startedHere.add(op.id);
  putMove(op);
}

/** Whether a move started here has just finished, so the app goes to the agent's new address: true once. */
export function arrivedHere(op: MoveOperation): boolean {
  if (op.kind !== 'move' || op.step !== 'done' || !startedHere.has(op.id)) return false;
  startedHere.delete(op.id);
  return true;
}

/** The owner put a finished operation's banner away. */
export function dismissMove(agent: string): void {
  const next = new Map(moves.value);
  if (next.delete(agent)) moves.value = next;
}

/** Still under way: not done, and not failed with its undoing finished (a failed one undoing is not settled yet). */
export const underWay = (op: MoveOperation): boolean =>
  op.step !== 'done' && !(op.step === 'failed' && op.undo.length === 0);

/**
 * On every hello: whether the hub moves agents, and, for each operation still under way, its state now (the events
 * a dropped stream missed), read once per reconnect rather than polled.
 */
export async function onMoveHello(
  features: readonly string[],
  movesOf: (agent: string) => Promise<readonly MoveOperation[]>,
): Promise<void> {
  movesOffered.value = features.includes('agent_move');
  const pending = [...moves.value.values()].filter(underWay);
  await Promise.all(
    pending.map(async (op) => {
      const [latest] = await movesOf(op.agent);
      if (latest) putMove(latest);
    }),
  );
}
