import type { Principal } from '../wire/token-kinds.js';
import { sameSecret } from './secrets.js';
import type { TokenStore } from './token-store.js';

/** Turns a bearer token into a Principal. The operator and agent tokens live in files; the rest in the store. */
export class Authenticator {
  constructor(
    private readonly operatorToken: string,
    private readonly agentToken: string,
    private readonly store: TokenStore,
  ) {}

  identify(token: string): Principal | null {
    if (sameSecret(token, this.operatorToken)) return { kind: 'operator' };
    if (sameSecret(token, this.agentToken)) return { kind: 'agent' };
    const record = this.store.find(token);
    if (!record) return null;
    this.store.touch(record.id);
    return record.kind === 'device'
      ? { kind: 'device', id: record.id, name: record.name, fleet: record.fleet }
      : { kind: 'client', id: record.id, name: record.name, canPost: record.can_post };
  }
}
