import { z } from 'zod';
import type { Database } from '../store/database.js';
import type { Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { rfc3339 } from '../core/time.js';
import { hashToken, newToken } from './secrets.js';

export const IssuedTokenKind = z.enum(['device', 'client']);
export type IssuedTokenKind = z.infer<typeof IssuedTokenKind>;

/** The wire shape of a paired device or API client; the token itself is shown once, at creation, never again. */
export const TokenRecord = z.object({
  id: z.string(),
  kind: IssuedTokenKind,
  name: z.string(),
  can_post: z.boolean(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type TokenRecord = z.infer<typeof TokenRecord>;

export const TokenName = z
  .string()
  .trim()
  .min(1, 'name must not be empty')
  .max(64, 'name must be at most 64 characters')
  .regex(/^[\p{L}\p{N} ._'-]+$/u, "name may hold letters, digits, spaces and . _ ' -");

export class DuplicateTokenNameError extends Error {}

interface Row {
  id: string;
  kind: IssuedTokenKind;
  name: string;
  can_post: number;
  created_at: string;
  last_used_at: string | null;
}

const toRecord = (r: Row): TokenRecord => ({ ...r, can_post: r.can_post === 1 });

/** Paired-device and API-client tokens. Only SHA-256 hashes are stored; a lookup is by hash, never by value. */
export class TokenStore {
  private readonly lastTouched = new Map<string, number>();

  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  issue(kind: IssuedTokenKind, name: string, canPost = false): { record: TokenRecord; token: string } {
    const token = newToken(kind === 'device' ? 'leo_dev' : 'leo_cli');
    const row: Row = {
      id: newId(this.clock.now()),
      kind,
      name,
      can_post: kind === 'client' && canPost ? 1 : 0,
      created_at: rfc3339(this.clock.now()),
      last_used_at: null,
    };
    try {
      this.db
        .prepare(
          `INSERT INTO tokens (id, kind, name, hash, can_post, created_at) VALUES (@id, @kind, @name, @hash, @can_post, @created_at)`,
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
    const rows = this.db
      .prepare(`SELECT id, kind, name, can_post, created_at, last_used_at FROM tokens WHERE kind = ? ORDER BY id`)
      .all(kind) as Row[];
    return rows.map(toRecord);
  }

  /** Revokes by id or by name; returns the revoked record, or null when nothing matched. */
  revoke(kind: IssuedTokenKind, idOrName: string): TokenRecord | null {
    const row = this.db
      .prepare(
        `DELETE FROM tokens WHERE kind = ? AND (id = ? OR name = ?) RETURNING id, kind, name, can_post, created_at, last_used_at`,
      )
      .get(kind, idOrName, idOrName) as Row | undefined;
    return row ? toRecord(row) : null;
  }

  find(token: string): TokenRecord | null {
    const row = this.db
      .prepare(`SELECT id, kind, name, can_post, created_at, last_used_at FROM tokens WHERE hash = ?`)
      .get(hashToken(token)) as Row | undefined;
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
