import type { Database } from '../store/database.js';
import type { Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { rfc3339 } from '../core/time.js';
import { hashToken, newToken } from './secrets.js';
import type { IssuedTokenKind, TokenRecord } from '../wire/tokens.js';
import { LeoError } from '../core/leo-error.js';

export class DuplicateTokenNameError extends LeoError {
  constructor(message: string) {
    super(409, message);
  }
}

interface Row {
  id: string;
  kind: IssuedTokenKind;
  name: string;
  can_post: number;
  fleet: number;
  created_at: string;
  last_used_at: string | null;
}

const toRecord = (r: Row): TokenRecord => ({ ...r, can_post: r.can_post === 1, fleet: r.fleet === 1 });
const COLUMNS = 'id, kind, name, can_post, fleet, created_at, last_used_at';

/** What a human reading a token sees first: which kind it is. */
const PREFIX: Record<IssuedTokenKind, string> = { device: 'leo_dev', client: 'leo_cli', peer: 'leo_peer' };

/** What a new token may do beyond its kind's routes: can_post for an API client, fleet for a device. */
export interface TokenGrants {
  canPost?: boolean;
  fleet?: boolean;
}

/** Paired-device, API-client and peer-hub tokens. Only SHA-256 hashes are stored; a lookup is by hash, never by value. */
export class TokenStore {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  issue(kind: IssuedTokenKind, name: string, grants: TokenGrants = {}): { record: TokenRecord; token: string } {
    const token = newToken(PREFIX[kind]);
    const row: Row = {
      id: newId(this.clock.now()),
      kind,
      name,
      can_post: kind === 'client' && grants.canPost ? 1 : 0,
      fleet: kind === 'device' && grants.fleet ? 1 : 0,
      created_at: rfc3339(this.clock.now()),
      last_used_at: null,
    };
    try {
      this.db
        .prepare(
          `INSERT INTO tokens (id, kind, name, hash, can_post, fleet, created_at) VALUES (@id, @kind, @name, @hash, @can_post, @fleet, @created_at)`,
        )
        .run({ ...row, hash: hashToken(token) });
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE')
        throw new DuplicateTokenNameError(`a ${kind} named "${name}" already exists`);
      throw err;
    }
    return { record: toRecord(row), token };
  }

  list(kind: IssuedTokenKind): TokenRecord[] {
    const rows = this.db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE kind = ? ORDER BY id`).all(kind) as Row[];
    return rows.map(toRecord);
  }

  /** Revokes by id or by name; returns the revoked record, or null when nothing matched. */
  revoke(kind: IssuedTokenKind, idOrName: string): TokenRecord | null {
    const row = this.db
      .prepare(`DELETE FROM tokens WHERE kind = ? AND (id = ? OR name = ?) RETURNING ${COLUMNS}`)
      .get(kind, idOrName, idOrName) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  /**
   * Grants or takes back a device's fleet scope, by id or by name; the updated record, or null when no device matched.
   * Every request is checked against the stored row, so the next one is decided by the new value.
   */
  setFleet(idOrName: string, fleet: boolean): TokenRecord | null {
    const row = this.db
      .prepare(`UPDATE tokens SET fleet = ? WHERE kind = 'device' AND (id = ? OR name = ?) RETURNING ${COLUMNS}`)
      .get(fleet ? 1 : 0, idOrName, idOrName) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  find(token: string): TokenRecord | null {
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM tokens WHERE hash = ?`).get(hashToken(token)) as
      Row | undefined;
    return row ? toRecord(row) : null;
  }

  /** Records use at most once a minute per token, so a chatty client does not turn every request into a write. */
  touch(id: string): void {
    const now = this.clock.now();
    if (now - (this.lastTouched.get(id) ?? -Infinity) < 60_000) return;
    this.lastTouched.set(id, now);
    this.db.prepare(`UPDATE tokens SET last_used_at = ? WHERE id = ?`).run(rfc3339(now), id);
  }
}
