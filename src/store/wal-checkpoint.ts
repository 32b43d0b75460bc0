import type { Database } from './sqlite.js';

/** What `PRAGMA wal_checkpoint` answers: whether it was kept from finishing, the WAL's frames, and how many are copied. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * The main connection's own checkpoint, SQLite's safety net: past this many WAL pages the committing call copies them
 * itself, on the main thread. At the default (1 000) that was a copy and two fsyncs every few hundred rows, up to
 * seconds each on a busy disk; with the pool's checkpoints ahead of it, it runs only when they cannot keep up.
 */
export const MAIN_CHECKPOINT_PAGES = 4_000;

/** Rows changed between two checkpoints off the main thread: about SQLite's 1 000 pages at one to four pages a row. */
export const CHECKPOINT_EVERY_ROWS = 250;
/** How often the main connection's changes are counted (one `total_changes()`: microseconds). */
export const LOOK_EVERY_MS = 1_000;

/** A checkpoint that copies the WAL into the database without waiting on readers or writers (another connection). */
export const PASSIVE_CHECKPOINT = 'wal_checkpoint(PASSIVE)';

/**
 * Keeps chat.db's WAL copied into the database from a pool thread (its own connection), so the main thread's commits
 * only append to the WAL (docs/DECISIONS.md, "Checkpoints off the main thread"). One checkpoint at a time; a failed
 * one is retried at the next look, and SQLite's own checkpoint at MAIN_CHECKPOINT_PAGES bounds the WAL meanwhile.
 */
export class WalCheckpoints {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;
  private copiedAt = 0;

  constructor(
    private readonly deps: {
      db: Database;
      file: string;
      checkpoint(file: string): Promise<CheckpointResult>;
      onError(err: unknown): void;
      everyRows?: number;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => this.look(), LOOK_EVERY_MS);
    this.timer.unref();
  }

  /** Stops looking; resolves once a checkpoint under way has ended. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** Starts a checkpoint when enough rows changed since the last one began, unless one is running. */
  look(): void {
    if (this.running) return;
    const changed = this.deps.db.prepare('SELECT total_changes()').pluck().get() as number;
    if (changed - this.copiedAt < (this.deps.everyRows ?? CHECKPOINT_EVERY_ROWS)) return;
    const before = this.copiedAt;
    this.copiedAt = changed;
    this.running = this.deps
      .checkpoint(this.deps.file)
      .then(
        () => undefined,
        (err) => {
          this.copiedAt = before;
          this.deps.onError(err);
        },
      )
      .finally(() => (this.running = null));
  }
}
