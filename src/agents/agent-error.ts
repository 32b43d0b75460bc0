/** Why an agent operation was refused, in terms the HTTP layer maps to a status (404, 409, 400, 500). */
export type AgentErrorKind = 'not_found' | 'conflict' | 'invalid' | 'config_unavailable';

export class AgentError extends Error {
  constructor(
    readonly kind: AgentErrorKind,
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AgentError';
  }
}

/** Why a message from anyone but the agent's owner did not start an agent stopped on purpose. */
export function stayingDown(name: string): string {
  return `${name} is stopped and stays down until started (\`leo agent start ${name}\`)`;
}
