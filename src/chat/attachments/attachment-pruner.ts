import type { Clock, TimerHandle } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import type { AttachmentStore } from './attachments.js';

export const PRUNE_EVERY_MS = 6 * 3600_000;
/** An upload no message has claimed after a day was abandoned (a composer closed, a send given up). */
export const UNCLAIMED_UPLOAD_TTL_MS = 24 * 3600_000;

/**
 * Removes attachment files on the worker pool, a batch at a time, and marks their rows unavailable: uploads no
 * message claimed within a day, and every file older than chat.attachment_retention (90 days by default). Runs at
 * start and every six hours.
 */
export class AttachmentPruner {
  private timer: TimerHandle | null = null;
  private chain: Promise<void> = Promise.resolve();
  private queued = false;

  constructor(
    private readonly deps: {
      attachments: AttachmentStore;
      clock: Clock;
      logger: Logger;
      retentionMs(): number;
      prune(input: { root: string; files: string[] }): Promise<string[]>;
    },
  ) {}

  start(): void {
    void this.runOnce();
    this.timer = this.deps.clock.setInterval(() => void this.runOnce(), PRUNE_EVERY_MS);
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    await this.chain;
  }

  /**
   * Queues a pass after the one running, if any; calls made before that pass starts share it. A pass reads the clock
   * when it starts, never when it was asked for.
   */
  runOnce(): Promise<void> {
    if (!this.queued) {
      this.queued = true;
      this.chain = this.chain.then(() => {
        this.queued = false;
        return this.sweep();
      });
    }
    return this.chain;
  }

  private async sweep(): Promise<void> {
    const { attachments, clock } = this.deps;
    const now = clock.now();
    if (!(await this.sweepUnclaimed(now - Math.min(UNCLAIMED_UPLOAD_TTL_MS, this.deps.retentionMs())))) return;
    const cutoff = now - this.deps.retentionMs();
    for (;;) {
      const batch = attachments.expired(cutoff);
      if (!batch.length) return;
      try {
        const gone = new Set(await this.deps.prune({ root: attachments.root, files: batch.map((b) => b.path) }));
        const ids = batch.filter((b) => gone.has(b.path)).map((b) => b.id);
        attachments.markPruned(ids);
        this.deps.logger.info({ pruned: ids.length }, 'old attachments pruned');
        if (ids.length < batch.length) return;
      } catch (err) {
        this.deps.logger.warn({ err: (err as Error).message }, 'attachment pruning failed');
        return;
      }
    }
  }

  /** Withdraws and removes unclaimed uploads made before `cutoff`; false when the pool failed (the pass stops). */
  private async sweepUnclaimed(cutoff: number): Promise<boolean> {
    const { attachments } = this.deps;
    for (;;) {
      const batch = attachments.withdrawUnclaimed(cutoff);
      if (!batch.length) return true;
      try {
        await this.deps.prune({ root: attachments.root, files: batch.map((b) => b.path) });
        this.deps.logger.info({ pruned: batch.length }, 'unclaimed uploads pruned');
      } catch (err) {
        this.deps.logger.warn({ err: (err as Error).message }, 'unclaimed upload pruning failed');
        return false;
      }
    }
  }
}
