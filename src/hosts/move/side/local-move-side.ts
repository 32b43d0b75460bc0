import { LeoError } from '../../../core/leo-error.js';
import { parseAddress } from '../../../wire/agent-address.js';
import { HostRefusedError } from '../../host-client.js';
import type { MoveSide } from '../operation/move-sides.js';
import type { MoveSideService } from './move-side-service.js';

/**
 * The hub's own daemon as a move's source or target: its MoveSideService called directly. A refusal (any error of
 * the call) rejects as a followed host's answer would, with HostRefusedError carrying its status and code, so the
 * runner reads both sides alike.
 */
export function localMoveSide(moves: MoveSideService): MoveSide {
  const { source, target } = moves;
  const name = (agent: string) => parseAddress(agent)?.name ?? agent;
  return {
    park: (op) => refused(source.park(op.id, name(op.agent))),
    resume: (op) => refused(source.resume(op.id, name(op.agent))),
    measure: (op) => refused(source.measure(name(op.agent))),
    pack: (op) => refused(source.pack(op.id, name(op.agent), op.kind)),
    part: (op, part) => refused(Promise.resolve().then(() => source.part(op.id, part))),
    held: (op) => refused(Promise.resolve().then(() => target.held(op.id))),
    receive: (op, part, body) => refused(target.receive(op.id, part, body)),
    spawn: (op, pack) => refused(target.spawn(op.id, op.as, pack, op.kind)),
    settle: (op) => refused(target.settle(op.id)),
    discard: (op) => refused(target.discard(op.id)),
    mark: (op) => refused(source.mark(op.id, name(op.agent), op.to, op.as)),
  };
}

async function refused<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    const status = err instanceof LeoError ? err.statusCode : 500;
    const code = err instanceof LeoError ? err.code : undefined;
    throw new HostRefusedError(status, code, `this hub refused: ${(err as Error).message}`);
  }
}
