import type { Logger } from '../core/logger.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import type { Database } from '../store/database.js';
import { WalCheckpoints } from '../store/wal-checkpoint.js';
import type { Domain } from './domain.js';

export interface StoreWiringDeps {
  db: Database;
  /** chat.db's path, which the pool thread opens for itself. */
  file: string;
  pool: WorkerPool;
  logger: Logger;
}

/** chat.db's upkeep: its WAL checkpointed from a pool thread (the main connection only appends). */
export function wireStore(d: StoreWiringDeps): Domain {
  const checkpoints = new WalCheckpoints({
    db: d.db,
    file: d.file,
    checkpoint: (file) => d.pool.background.run('checkpointWal', { file }),
    onError: (err) => d.logger.warn({ err: (err as Error).message }, 'chat.db checkpoint failed; retried'),
  });
  return { start: () => checkpoints.start(), stop: () => checkpoints.stop() };
}
