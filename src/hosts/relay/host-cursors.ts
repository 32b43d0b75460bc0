import type { Database } from '../../store/database.js';
import type { Cursor } from '../follower/follow-rules.js';
import type { HostViewData } from './host-view.js';

export interface SavedHost {
  cursor: Cursor;
  view: HostViewData;
}

/** The hub's memory of each followed host across its own restarts, in the hosts table the registry keeps. */
export class HostCursors {
  constructor(private readonly db: Database) {}

  load(name: string): SavedHost | null {
    const row = this.db.prepare(`SELECT cursor_boot, cursor_seq, view FROM hosts WHERE name = ?`).get(name) as
      { cursor_boot: string | null; cursor_seq: number | null; view: string | null } | undefined;
    if (!row?.cursor_boot || row.cursor_seq === null || !row.view) return null;
    try {
      return { cursor: { bootId: row.cursor_boot, seq: row.cursor_seq }, view: JSON.parse(row.view) as HostViewData };
    } catch {
      return null;
    }
  }

  save(name: string, saved: SavedHost): void {
    this.db
      .prepare(`UPDATE hosts SET cursor_boot = ?, cursor_seq = ?, view = ? WHERE name = ?`)
      .run(saved.cursor.bootId, saved.cursor.seq, JSON.stringify(saved.view), name);
  }

  seen(name: string, at: string): void {
    this.db.prepare(`UPDATE hosts SET last_seen_at = ? WHERE name = ?`).run(at, name);
  }

  lastSeen(name: string): string | null {
    const row = this.db.prepare(`SELECT last_seen_at FROM hosts WHERE name = ?`).get(name) as
      { last_seen_at: string | null } | undefined;
    return row?.last_seen_at ?? null;
  }
}
