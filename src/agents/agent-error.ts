import { LeoError } from '../core/leo-error.js';

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
