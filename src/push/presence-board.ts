import type { Clock } from '../core/clock.js';
import type { Presence } from './policy.js';

/** How long a "thread open" report lasts: a client re-reports while the thread stays on screen. */
export const PRESENCE_TTL_MS = 90_000;

/** The viewer a report is kept under: the reporting token (`device:<id>`), or its kind for the operator and socket. */
export function viewerOf(p: { kind: string; id?: string } | null): string {
  return p && p.id !== undefined ? `${p.kind}:${p.id}` : (p?.kind ?? 'anonymous');
}

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

  /** Drops every report of one viewer: a revoked device's "on screen" must not keep silencing pushes. */
  forget(viewer: string): void {
    for (const [agent, viewers] of this.open) if (viewers.delete(viewer) && viewers.size === 0) this.open.delete(agent);
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
