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
    switch (record.kind) {
      case 'device':
        return { kind: 'device', id: record.id, name: record.name, fleet: record.fleet };
      case 'client':
        return { kind: 'client', id: record.id, name: record.name, canPost: record.can_post };
      case 'peer':
        return { kind: 'peer', id: record.id, name: record.name };
    }
  }
}
