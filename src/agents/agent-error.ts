import { LeoError } from '../core/leo-error.js';
import { addressOf } from '../wire/agent-address.js';
import type { AgentRecord } from './agent-record.js';

/** Why an agent operation was refused; each kind is a status (404, 409, 400, 500). */
export type AgentErrorKind = 'not_found' | 'conflict' | 'invalid' | 'config_unavailable';

const STATUS: Record<AgentErrorKind, number> = { not_found: 404, conflict: 409, invalid: 400, config_unavailable: 500 };

export class AgentError extends LeoError {
  constructor(
    readonly kind: AgentErrorKind,
    message: string,
    readonly field?: string,
  ) {
    super(
      STATUS[kind],
      message,
      kind === 'config_unavailable' ? 'config_unavailable' : undefined,
      field ? { field } : undefined,
    );
    this.name = 'AgentError';
  }
}

/** Why a message from anyone but the agent's owner did not start an agent stopped on purpose. */
export function stayingDown(name: string): string {
  return `${name} is stopped and stays down until started (\`leo agent start ${name}\`)`;
}

/** Where a moved agent's dormant record says it went (issue 32): `name@host`, with the name it took there. */
const movedAddress = (record: Pick<AgentRecord, 'name' | 'moved_to' | 'moved_as'>): string =>
  addressOf(record.moved_as ?? record.name, record.moved_to);

/**
 * A send to, or a start of, the dormant record a moved agent left (issue 32) that no hub forwarded: it is not typed
 * into the old pane and the agent is not started here again; the answer names where it went, so nothing is lost.
 */
export function movedAway(record: Pick<AgentRecord, 'name' | 'moved_to' | 'moved_at' | 'moved_as'>): LeoError {
  const address = movedAddress(record);
  return new LeoError(
    409,
    `${record.name} moved to ${record.moved_to ?? '?'} at ${record.moved_at ?? '?'}: send to ${address} instead`,
    'agent_moved',
    { moved_to: record.moved_to, moved_at: record.moved_at, address },
  );
}

/**
 * A start of, or a message typed into, an agent a move has parked (issue 32): it is being shipped to another host, and
 * runs again here or there once the move ends. A chat message waits for it instead (pending).
 */
export function agentMoving(name: string): LeoError {
  return new LeoError(409, `${name} is being moved to another host: try again once the move ends`, 'agent_moving');
}

/**
 * A chat message to an agent whose move already packed its thread, or that a move is bringing here (issue 32): 503
 * with Retry-After, which clients (the app's outbox) take as "try again", so the message is sent again once the move
 * ends, and reaches the agent where it then is.
 */
export function agentShipping(name: string): LeoError {
  return new LeoError(
    503,
    `${name} is being moved between hosts: send again in a moment`,
    'agent_moving',
    undefined,
    2,
  );
}
