import type { Config } from '../../config/schema.js';
import type { AgentRecord } from '../agent-record.js';
import { resolveAgent } from '../resolve.js';
import type { ActivityBook } from './fleet-state.js';

/**
 * The running agents idle for at least their template's idle_suspend_after, to be parked (an inbound message wakes
 * them). Pure over the records, the activity the sweep saw and `now`.
 */
export function idleToPark(
  running: readonly string[],
  at: { record(agent: string): AgentRecord | null; activity: ActivityBook; config: Config; home: string; now: number },
): string[] {
  return running.filter((agent) => {
    const record = at.record(agent);
    if (!record) return false;
    const after = resolveAgent(record, at.config, at.home).idleSuspendAfterMs;
    const a = at.activity.snapshot(agent);
    return (
      after !== null && a.activity === 'idle' && a.last_activity_at !== null && at.now - a.last_activity_at >= after
    );
  });
}
