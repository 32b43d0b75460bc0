import type { Clock, TimerHandle } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { formatLocal } from '../../core/local-time.js';
import { isRealTime, rfc3339 } from '../../core/time.js';
import type { Database } from '../../store/database.js';
import type { ChatService } from '../threads/chat-service.js';
import { LeoError } from '../../core/leo-error.js';

/** A reminder fired more than this late says so. */
export const LATE_AFTER_MS = 60_000;
/** Timers are re-armed at least this often, so a reminder a year out never needs a timer Node cannot hold. */
const MAX_TIMER_MS = 6 * 3600_000;
/** While Leo Chat is off, due reminders wait, and are looked at again this often (they then fire late). */
const CHAT_OFF_RECHECK_MS = 60_000;

/** A reminder refused as asked for (a bad time, another thread's id): the caller's to fix. */
export class ReminderError extends LeoError {
  constructor(message: string) {
    super(400, message);
  }
}

export interface Reminder {
  id: string;
  text: string;
  at: string;
}

interface Row {
  id: string;
  agent: string;
  text: string;
  at: string;
  at_ms: number;
  task: string | null;
  run_id: string | null;
  state: 'scheduled' | 'fired' | 'cancelled';
}

// Seconds are required: the spec's `at` is a full RFC 3339 date-time (2026-10-14T09:00:00-04:00).
const RFC3339_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)$/;

/**
 * Pure: the latest `at` leo_chat_schedule takes, the same wall-clock time a calendar year after `now` in the daemon's
 * zone (not 366 days, which would allow a day more in most years). 29 February has no twin: the 28th stands in.
 */
export function oneYearAfter(now: number): number {
  const d = new Date(now);
  const at = (day: number) =>
    new Date(d.getFullYear() + 1, d.getMonth(), day, d.getHours(), d.getMinutes(), d.getSeconds(), d.getMilliseconds());
  const lastDay = new Date(d.getFullYear() + 1, d.getMonth() + 1, 0).getDate();
  return at(Math.min(d.getDate(), lastDay)).getTime();
}

/** Pure: the `at` of leo_chat_schedule, checked (RFC 3339 with seconds and an offset, strictly future, a year out). */
export function parseReminderTime(at: string, now: number): number {
  if (!RFC3339_WITH_OFFSET.test(at))
    throw new ReminderError(
      `at: expected an RFC 3339 time with seconds and an offset, like 2026-10-14T09:00:00-04:00; got ${JSON.stringify(at)}`,
    );
  if (!isRealTime(at)) throw new ReminderError(`at: ${JSON.stringify(at)} is not a real time`);
  const ms = Date.parse(at);
  if (ms <= now) throw new ReminderError('at: must be in the future');
  if (ms > oneYearAfter(now)) throw new ReminderError('at: must be at most a year from now');
  return ms;
}

/**
 * leo_chat_schedule: reminders stored in chat.db that post into their thread when due. Each fires exactly once, also
 * after downtime: the row is claimed (scheduled → fired) in the same statement that decides it fires, and in the same
 * transaction as its post.
 */
export class ReminderService {
  private timer: TimerHandle | null = null;

  constructor(
    private readonly deps: {
      db: Database;
      clock: Clock;
      chat: ChatService;
      /** chat.enabled: while false nothing fires; due reminders stay scheduled and fire once it is back on. */
      enabled?(): boolean;
    },
  ) {}

  schedule(thread: { agent: string; task?: string | undefined; runId?: string | undefined }, text: string, at: string) {
    if (!text.trim()) throw new ReminderError('text: must not be empty');
    const atMs = parseReminderTime(at, this.deps.clock.now());
    const id = newId(this.deps.clock.now());
    this.deps.db
      .prepare(
        'INSERT INTO reminders (id, agent, text, at, at_ms, task, run_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        id,
        thread.agent,
        text,
        rfc3339(atMs),
        atMs,
        thread.task ?? null,
        thread.runId ?? null,
        rfc3339(this.deps.clock.now()),
      );
    this.rearm();
    return { id, text, at: rfc3339(atMs) };
  }

  list(agent: string): Reminder[] {
    return this.deps.db
      .prepare(`SELECT id, text, at FROM reminders WHERE agent = ? AND state = 'scheduled' ORDER BY at_ms, id`)
      .all(agent) as Reminder[];
  }

  cancel(agent: string, id: string): { id: string; cancelled: true } {
    const row = this.deps.db.prepare('SELECT agent, state FROM reminders WHERE id = ?').get(id) as
      Pick<Row, 'agent' | 'state'> | undefined;
    if (!row || row.agent !== agent) throw new ReminderError(`no reminder ${id} in your thread`);
    if (row.state !== 'scheduled')
      throw new ReminderError(`reminder ${id} has already ${row.state === 'fired' ? 'fired' : 'been cancelled'}`);
    this.deps.db.prepare(`UPDATE reminders SET state = 'cancelled' WHERE id = ? AND state = 'scheduled'`).run(id);
    this.rearm();
    return { id, cancelled: true };
  }

  /**
   * An agent that moved to another host (issue 32) takes its reminders along: here they are cancelled, so none fires
   * in the thread it left as well as in the one it runs in.
   */
  cancelAll(agent: string): void {
    this.deps.db.prepare(`UPDATE reminders SET state = 'cancelled' WHERE agent = ? AND state = 'scheduled'`).run(agent);
    this.rearm();
  }

  /** Fires everything due (including what came due while the daemon was down) and arms the next timer. */
  start(): void {
    this.fireDue();
  }

  close(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private fireDue(): void {
    if (this.deps.enabled && !this.deps.enabled()) {
      this.timer?.cancel();
      this.timer = this.deps.clock.setTimeout(() => this.fireDue(), CHAT_OFF_RECHECK_MS);
      return;
    }
    const now = this.deps.clock.now();
    const due = this.deps.db
      .prepare(`SELECT * FROM reminders WHERE state = 'scheduled' AND at_ms <= ? ORDER BY at_ms, id`)
      .all(now) as Row[];
    const claim = this.deps.db.prepare(`UPDATE reminders SET state = 'fired' WHERE id = ? AND state = 'scheduled'`);
    // The claim and the post commit together: a crash between two separate commits would leave it fired, unposted.
    const fire = this.deps.db.transaction((r: Row) => {
      if (claim.run(r.id).changes !== 1) return;
      const late = now - r.at_ms > LATE_AFTER_MS ? `\n_(late — scheduled for ${formatLocal(r.at_ms)})_` : '';
      this.deps.chat.post(r.agent, {
        text: `${r.text}${late}`,
        ...(r.task ? { task: r.task } : {}),
        ...(r.run_id ? { runId: r.run_id } : {}),
      });
    });
    for (const r of due) fire(r);
    this.rearm();
  }

  /** Arms the timer for the next reminder due: after reminders were written or removed elsewhere (a moved thread). */
  rearm(): void {
    this.timer?.cancel();
    this.timer = null;
    const next = this.deps.db.prepare(`SELECT MIN(at_ms) FROM reminders WHERE state = 'scheduled'`).pluck().get() as
      number | null;
    if (next === null) return;
    const delay = Math.min(Math.max(0, next - this.deps.clock.now()), MAX_TIMER_MS);
    this.timer = this.deps.clock.setTimeout(() => this.fireDue(), delay);
  }
}
