import type { MoveFault } from '../../../wire/move.js';
import { HostUnreachableError } from '../../host-client.js';

export type MoveSideName = 'source' | 'target';

/** A call of one side that failed: which side, and what it threw. */
export class SideFailure extends Error {
  constructor(
    readonly side: MoveSideName,
    readonly error: unknown,
  ) {
    super(`the ${side}: ${(error as Error)?.message ?? String(error)}`);
    this.name = 'SideFailure';
  }
}

/** `call` under the side it talks to, so a failure says which. */
export async function onSide<T>(side: MoveSideName, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw err instanceof SideFailure ? err : new SideFailure(side, err);
  }
}

/**
 * What a side's failure means for the operation. A side that did not answer: its link cut, or its daemon killed when
 * the connection was refused (the machine answered, nothing listened: docs/DECISIONS.md); one that answered with a
 * refusal, or anything else that went wrong: `refused`.
 */
export function faultOf(failure: SideFailure): { fault: MoveFault; message: string } {
  const { side, error } = failure;
  if (error instanceof HostUnreachableError) {
    const fault: MoveFault = error.why === 'ECONNREFUSED' ? `${side}_killed` : `link_cut_${side}`;
    return { fault, message: error.message };
  }
  return { fault: 'refused', message: `the ${side} refused: ${(error as Error)?.message ?? String(error)}` };
}
