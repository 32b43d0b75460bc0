import { z } from 'zod';
import type { PushPrefs, QuietHours } from '../wire/push.js';
import type { PushRecord } from './push-payload.js';

/**
 * The per-state push policy: whether one device gets one push, given its owner's preferences and presence. Pure; the
 * dispatcher asks it once per subscription.
 *
 * Each subscription carries prefs `{mode, agents?, quiet_hours?}` (absent prefs mean mode all, no quiet hours); `agents`
 * overrides the mode for the agents it names (a noisy agent asks only, a quiet one everything). A push "wants
 * an answer" when it is an ask (questions cards included) or a needs_input alert (permission prompts included).
 * In order:
 * 1. mode none pushes nothing; asks_only pushes only what wants an answer (the agent's own mode, else the device's).
 * 2. Nothing pushes while a client has the agent's thread open (presence.viewing): the message is on a screen
 *    already. Presence must be fresh (a client that vanished without saying so must time out), or pushes go missing.
 * 3. Inside quiet hours posts are dropped, and what wants an answer still goes out, silently: someone is blocked on
 *    it, but it should not wake anybody. The window is [start, end) in local time of `timezone` (default: the
 *    daemon's), may cross midnight (22:00–07:00), and start equal to end means no window.
 * 4. A push that goes out gets a collapse key, so the device (notification tag / APNs collapse id) and the push service
 *    (Web Push Topic) replace rather than stack: a burst of an agent's posts shows as one notification holding the
 *    latest (`chat:<agent>`); each ask or permission prompt keeps its own (`message:<id>`) since each needs its own
 *    answer; the agent's own needs_input alerts replace each other (`needs_input:<agent>`). What wants an answer goes
 *    at high urgency, posts at normal.
 */

export interface Presence {
  /** Whether some client has this agent's thread open right now. */
  viewing(agent: string): boolean;
}

export const PushUrgency = z.enum(['high', 'normal']);
export type PushUrgency = z.infer<typeof PushUrgency>;

export type PushDecision =
  | { push: false; reason: 'mode' | 'viewing' | 'quiet_hours' }
  | { push: true; collapse_key: string; urgency: PushUrgency; silent: boolean };

export type PushPolicy = (
  record: PushRecord,
  prefs: PushPrefs | undefined,
  presence: Presence,
  now: number,
) => PushDecision;

export const decidePush: PushPolicy = (record, prefs, presence, now) => {
  const mode = prefs?.agents?.[record.agent] ?? prefs?.mode ?? 'all';
  const wantsAnswer = wantsAnAnswer(record);
  if (mode === 'none' || (mode === 'asks_only' && !wantsAnswer)) return { push: false, reason: 'mode' };
  if (presence.viewing(record.agent)) return { push: false, reason: 'viewing' };
  const quiet = prefs?.quiet_hours !== undefined && inQuietHours(prefs.quiet_hours, now);
  if (quiet && !wantsAnswer) return { push: false, reason: 'quiet_hours' };
  return { push: true, collapse_key: collapseKey(record), urgency: wantsAnswer ? 'high' : 'normal', silent: quiet };
};

export function wantsAnAnswer(record: PushRecord): boolean {
  return record.kind === 'needs_input' || (record.kind === 'chat' && record.message_kind === 'ask');
}

export function collapseKey(record: PushRecord): string {
  if (record.kind === 'test') return 'test';
  if (record.kind === 'chat')
    return record.message_kind === 'ask' ? `message:${record.message_id}` : `chat:${record.agent}`;
  return record.message_id ? `message:${record.message_id}` : `needs_input:${record.agent}`;
}

export function inQuietHours(q: QuietHours, now: number): boolean {
  const start = minutesOf(q.start);
  const end = minutesOf(q.end);
  if (start === end) return false;
  const t = localMinutes(now, q.timezone);
  return start < end ? t >= start && t < end : t >= start || t < end;
}

function minutesOf(hhmm: string): number {
  const [h, m] = hhmm.split(':');
  return Number(h) * 60 + Number(m);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function localMinutes(now: number, timeZone: string | undefined): number {
  const key = timeZone ?? '';
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    formatters.set(key, f);
  }
  let h = 0;
  let m = 0;
  for (const p of f.formatToParts(now)) {
    if (p.type === 'hour') h = Number(p.value);
    else if (p.type === 'minute') m = Number(p.value);
  }
  return h * 60 + m;
}
