import type { Database } from '../../../store/database.js';
import { MoveOperation } from '../../../wire/move.js';
import { actionOf } from './move-machine.js';

/**
 * The moves and copies a hub runs, one row each in chat.db (its operation whole, as JSON), saved after every
 * transition, so a hub that restarts finds each unsettled one where it stopped and resumes it by its id.
 */
export class MoveStore {
  constructor(private readonly db: Database) {}

  /** Saves the operation as it now is (a new one, or its next state). */
  save(op: MoveOperation): void {
    this.db
      .prepare(
        `INSERT INTO moves (id, source, step, settled, body, created_at, updated_at)
         VALUES (@id, @source, @step, @settled, @body, @created_at, @updated_at)
         ON CONFLICT (id) DO UPDATE SET step = @step, settled = @settled, body = @body, updated_at = @updated_at`,
      )
      .run({
        id: op.id,
        source: op.agent,
        step: op.step,
        settled: actionOf(op) === null ? 1 : 0,
        body: JSON.stringify(op),
        created_at: op.created_at,
        updated_at: op.updated_at,
      });
  }

  get(id: string): MoveOperation | null {
    const row = this.db.prepare('SELECT body FROM moves WHERE id = ?').get(id) as { body: string } | undefined;
    return row ? MoveOperation.parse(JSON.parse(row.body)) : null;
  }

  /** The operations with work left (a step, or an undo), oldest first: what a restarted hub resumes. */
  unsettled(): MoveOperation[] {
    return this.all('SELECT body FROM moves WHERE settled = 0 ORDER BY created_at, id');
  }

  /** Every operation on `agent` (its address), newest first. */
  of(agent: string): MoveOperation[] {
    return this.all('SELECT body FROM moves WHERE source = ? ORDER BY created_at DESC, id DESC', agent);
  }

  /** The unsettled operation on `agent` (its address), if any: a second move of it waits for the first. */
  unsettledOn(agent: string): MoveOperation | null {
    const row = this.db.prepare('SELECT body FROM moves WHERE source = ? AND settled = 0 LIMIT 1').get(agent) as
      { body: string } | undefined;
    return row ? MoveOperation.parse(JSON.parse(row.body)) : null;
  }

  private all(sql: string, ...args: unknown[]): MoveOperation[] {
    const rows = this.db.prepare(sql).all(...args) as { body: string }[];
    return rows.map((r) => MoveOperation.parse(JSON.parse(r.body)));
  }
}
