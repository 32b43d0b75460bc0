import type { Clock } from '../core/clock.js';
import type { Presence } from './policy.js';

/** How long a "thread open" report lasts: a client re-reports while the thread stays on screen. */
export const PRESENCE_TTL_MS = 90_000;

/**
 * Which threads clients have on screen, for push suppression. Reports expire by themselves so a phone that went
 * away without saying so (killed app, lost network) never silences pushes for longer than the TTL.
 */
export class PresenceBoard implements Presence {
  /** agent → viewer → expiry (ms). */
  private readonly open = new Map<string, Map<string, number>>();

  constructor(
    private readonly clock: Clock,
    private readonly ttlMs = PRESENCE_TTL_MS,
  ) {}

  report(agent: string, viewer: string, viewing: boolean): { viewing: boolean; expires_in_ms: number } {
    const viewers = this.open.get(agent) ?? new Map<string, number>();
    if (viewing) viewers.set(viewer, this.clock.now() + this.ttlMs);
    else viewers.delete(viewer);
    if (viewers.size > 0) this.open.set(agent, viewers);
    else this.open.delete(agent);
    return { viewing, expires_in_ms: viewing ? this.ttlMs : 0 };
  }

  viewing(agent: string): boolean {
    const viewers = this.open.get(agent);
    if (!viewers) return false;
    const now = this.clock.now();
    for (const [viewer, until] of viewers) if (until <= now) viewers.delete(viewer);
    if (viewers.size === 0) this.open.delete(agent);
    return viewers.size > 0;
  }
}
