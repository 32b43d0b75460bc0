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
