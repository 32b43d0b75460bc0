import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import type { Database } from '../store/database.js';
import { hashToken } from './secrets.js';
import { DuplicateTokenNameError, type TokenStore } from './token-store.js';
import type { TokenRecord } from '../wire/tokens.js';

/** How long a pairing code stays redeemable: long enough to reach for a phone, short enough to be worth little. */
export const PAIRING_CODE_TTL_MS = 10 * 60_000;

export interface IssuedPairingCode {
  /** Shown once (in the link and its QR code); only its hash is stored. */
  code: string;
  name: string;
  /** The device the code pairs is granted the fleet scope. */
  fleet: boolean;
  expires_at: string;
}

/** What a code turns into: a paired device's token (issue 16) or a peer hub's (a host's join code, issue 31). */
export type CodeKind = 'device' | 'peer';

/**
 * One-time codes that turn into a token of one kind (issue 16). A code is 128 random bits (short enough for a QR
 * code, far too many to guess), stored as a SHA-256 hash, valid for ten minutes and for one redemption: the row is
 * deleted by the statement that reads it.
 */
export class PairingCodes {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    private readonly tokens: TokenStore,
    private readonly kind: CodeKind,
  ) {}

  /** Refuses a name a token of the kind already has, so the redemption later cannot fail on it. */
  issue(name: string, fleet = false): IssuedPairingCode {
    if (this.tokens.list(this.kind).some((d) => d.name === name))
      throw new DuplicateTokenNameError(`a ${this.kind} named "${name}" already exists`);
    const now = this.clock.now();
    const code = randomBytes(16).toString('base64url');
    this.db.prepare(`DELETE FROM pairing_codes WHERE expires_ms <= ?`).run(now);
    this.db
      .prepare(`INSERT INTO pairing_codes (hash, kind, name, fleet, created_at, expires_ms) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(hashToken(code), this.kind, name, fleet ? 1 : 0, rfc3339(now), now + PAIRING_CODE_TTL_MS);
    return { code, name, fleet, expires_at: rfc3339(now + PAIRING_CODE_TTL_MS) };
  }

  /**
   * The token for a code, or null for a code that is unknown, used, expired or of the other kind. The code is spent either way;
   * a name taken since the code was issued is a DuplicateTokenNameError and leaves the code unspent.
   */
  redeem(code: string): { record: TokenRecord; token: string } | null {
    return this.db.transaction(() => {
      const row = this.db
        .prepare(`DELETE FROM pairing_codes WHERE hash = ? AND kind = ? RETURNING name, fleet, expires_ms`)
        .get(hashToken(code), this.kind) as { name: string; fleet: number; expires_ms: number } | undefined;
      if (!row || row.expires_ms <= this.clock.now()) return null;
      return this.tokens.issue(this.kind, row.name, { fleet: row.fleet === 1 });
    })();
  }
}
