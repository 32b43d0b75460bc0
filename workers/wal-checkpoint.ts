import { PASSIVE_CHECKPOINT, type CheckpointResult } from '../src/store/wal-checkpoint.js';
import { openSqlite } from '../src/store/sqlite.js';

/**
 * Copies the WAL of `file` into the database from this thread: the copy and its fsyncs stay off the main thread. A
 * connection of its own, closed after (at most one a second): none is left open when the pool's threads end.
 */
export async function checkpointWal(input: { file: string }): Promise<CheckpointResult> {
  const db = openSqlite(input.file);
  try {
    const [row] = db.pragma(PASSIVE_CHECKPOINT) as CheckpointResult[];
    return row!;
  } finally {
    db.close();
  }
}
