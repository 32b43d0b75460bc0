import os from 'node:os';
import { newId } from '../core/ids.js';
import type { Database } from '../store/database.js';

/**
 * This installation's host_id: a ULID made the first time it is asked for and kept in chat.db's meta table. In the
 * database rather than a file of its own because it names what the database holds: a restored backup is the same
 * host, a fresh LEO_HOME a new one.
 */
export function installationId(db: Database, now: number): string {
  db.prepare(`INSERT OR IGNORE INTO meta (key, value) VALUES ('host_id', ?)`).run(newId(now));
  return (db.prepare(`SELECT value FROM meta WHERE key = 'host_id'`).get() as { value: string }).value;
}

/** The machine's own short name (`box` of `box.local`): what a host calls itself; a hub names it as it likes. */
export function machineName(): string {
  return os.hostname().split('.')[0] || 'leo';
}
