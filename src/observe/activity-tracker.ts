import type { Harness } from '../config/schema.js';
import type { Chrome } from '../harnesses/chrome-parts.js';
import type { SessionInfo } from '../tmux/list-format.js';
import { rfc3339 } from '../core/time.js';
import type { Activity, AgentActivityEvent, CurrentAction } from '../wire/fleet.js';

/**
 * The activity state machine and its publish rate limit. Pure: it is fed sweep results and the Clock's `now`, and
 * answers with what to publish; the sweeper does the I/O and the timers.
 *
 * - A session whose activity advanced since the previous sweep → `working`; last_activity_at is the tmux activity
 *   time itself (epoch seconds × 1000), since the spec defines it as when the session last produced output or
 *   received input, not when Leo happened to look.
 * - No advance for longer than the idle threshold (measured on the Clock from the sweep that saw the last advance)
 *   → `idle`.
 * - The agent's turn ended (its harness's Stop hook) → `idle` at once: the turn is over, so waiting out the quiet
 *   window would show `working` for 15 s after the reply is posted. Advances seen within the turn's tail after it
 *   (the CLI redrawing its prompt, a sweep that looked before the Stop) are that same turn and keep it idle; a later
 *   advance is working again as usual.
 * - No session, a dead pane, or an agent that is not running → `unknown`.
 * - last_activity_at outlives the session: a stopped agent keeps it ("last seen"). Only a removal (forget) drops it,
 *   and a rename (rename) moves it to the new name.
 * - The first sweep that sees a session (after a spawn, a respawn or a daemon restart) only takes its baseline: an
 *   advance needs a known earlier value. It reports `idle` when tmux's activity time is already older than the idle
 *   threshold, else `unknown` until the next advance (→ working) or the threshold passes (→ idle).
 */

export type { Activity, CurrentAction };

export interface ActivitySnapshot {
  activity: Activity;
  current_action: CurrentAction | null;
  /** Epoch ms, null until the agent's session has been seen. */
  last_activity_at: number | null;
}

export interface ActivityChange extends ActivitySnapshot {
  agent: string;
}

/** A running agent and the tmux session it runs in. */
export interface AgentSession {
  agent: string;
  session: string;
  /** What runs in it, so the sweep can tell the harness's furniture from the agent's work (pane-chrome.ts). */
  harness?: Harness;
}

/** What the pool's sweep (workers/sweep.ts) is sent. */
export interface SweepInput {
  socketPath: string;
  tmuxBin?: string;
  /** Session → activity the tracker last saw; only these sessions can be captured. */
  previous: Record<string, number>;
  /** History lines captured above the visible screen. */
  captureLines?: number;
  /** Session → its agent's harness, whose furniture is not the pane line (a session missing here: none skipped). */
  harnesses?: Record<string, Harness>;
  /** Those harnesses' furniture, from their adapters, which the pool thread does not load (chrome.ts). */
  chrome?: Partial<Record<Harness, Chrome>>;
}

/** What one sweep saw: every session, and the last pane line of those captured (null: nothing visible). */
export interface SweepObservation {
  sessions: SessionInfo[];
  /** Keyed by session name; a session missing here was not captured (or its capture failed). */
  panes: Record<string, string | null>;
}

export interface ActivityTrackerOptions {
  idleMs?: number;
  /** At most one published change per agent per this interval. */
  minPublishIntervalMs?: number;
  /** How long after a Stop an advance still belongs to the ended turn: two sweeps, so one has looked after the redraw. */
  turnTailMs?: number;
}

/** The bus event for one change: times as RFC 3339, like the snapshot's Agent. */
export function activityEvent(change: ActivityChange): AgentActivityEvent {
  return {
    agent: change.agent,
    activity: change.activity,
    current_action: change.current_action,
    last_activity_at: change.last_activity_at === null ? null : rfc3339(change.last_activity_at),
  };
}

export const DEFAULT_IDLE_MS = 15_000;
export const DEFAULT_MIN_PUBLISH_INTERVAL_MS = 1_000;
export const DEFAULT_TURN_TAIL_MS = 4_000;

/** Whether a session's activity moved past a known baseline; the worker and the tracker share this one rule. */
export function advanced(baseline: number | undefined, activity: number): boolean {
  return baseline !== undefined && activity > baseline;
}

/** The sessions worth a capture-pane: live ones that advanced past their baseline. Idle ones cost nothing. */
export function sessionsToCapture(sessions: readonly SessionInfo[], baselines: Record<string, number>): string[] {
  return sessions.filter((s) => !s.paneDead && advanced(baselines[s.name], s.activity)).map((s) => s.name);
}

interface AgentState {
  /** The session the baseline belongs to; null when none is known. */
  session: string | null;
  baseline: number | null;
  /** Clock ms of the sweep that saw the latest advance (or the first sighting). */
  lastAdvanceAt: number;
  /** Clock ms until which an advance belongs to the turn that ended; null when no Stop is that recent. */
  turnTailUntil: number | null;
  activity: Activity;
  currentAction: CurrentAction | null;
  lastActivityAt: number | null;
  /** What subscribers were last told (activity + action); a change is anything that differs from it. */
  publishedKey: string;
  lastPublishedAt: number | null;
  /** When a change the rate limit held back becomes publishable. */
  pendingDueAt: number | null;
}

const UNKNOWN_KEY = publishKey('unknown', null);

function publishKey(activity: Activity, action: CurrentAction | null): string {
  return JSON.stringify([activity, action?.kind ?? null, action?.detail ?? null]);
}

export class ActivityTracker {
  private readonly idleMs: number;
  private readonly minIntervalMs: number;
  private readonly turnTailMs: number;
  private readonly agents = new Map<string, AgentState>();

  constructor(opts: ActivityTrackerOptions = {}) {
    this.idleMs = opts.idleMs ?? DEFAULT_IDLE_MS;
    this.minIntervalMs = opts.minPublishIntervalMs ?? DEFAULT_MIN_PUBLISH_INTERVAL_MS;
    this.turnTailMs = opts.turnTailMs ?? DEFAULT_TURN_TAIL_MS;
  }

  /**
   * The known activity per session of the given running agents: the sweep's `previous`, so the worker captures
   * exactly the sessions this tracker will call advanced.
   */
  baselines(running: readonly AgentSession[]): Record<string, number> {
    const out: Record<string, number> = {};
    for (const { agent, session } of running) {
      const st = this.agents.get(agent);
      if (st && st.session === session && st.baseline !== null) out[session] = st.baseline;
    }
    return out;
  }

  /**
   * Applies one sweep. `running` is every agent whose status is running, with its session; any agent tracked before
   * and missing from it becomes unknown. Returns the changes to publish now; held-back ones come from flushDue.
   */
  observe(running: readonly AgentSession[], sweep: SweepObservation, now: number): ActivityChange[] {
    const sessions = new Map(sweep.sessions.map((s) => [s.name, s]));
    const live = new Set<string>();
    for (const { agent, session } of running) {
      live.add(agent);
      const st = this.state(agent, now);
      const info = sessions.get(session);
      if (!info || info.paneDead) this.toUnknown(st);
      else this.apply(st, session, info, sweep.panes[session], now);
    }
    for (const [agent, st] of this.agents) if (!live.has(agent)) this.toUnknown(st);
    return this.publishable(now);
  }

  /**
   * The agent's turn ended (its Stop hook arrived): a running agent is idle now. Returns the changes to publish now,
   * like observe. An agent whose session no sweep has seen yet has nothing to say: the first sweep takes its baseline.
   */
  turnEnded(agent: string, now: number): ActivityChange[] {
    const st = this.agents.get(agent);
    if (!st || st.session === null) return [];
    st.activity = 'idle';
    st.currentAction = null;
    st.turnTailUntil = now + this.turnTailMs;
    return this.publishable(now);
  }

  /** Changes the rate limit held back that are due by `now`. */
  flushDue(now: number): ActivityChange[] {
    const out: ActivityChange[] = [];
    for (const [agent, st] of this.agents) {
      if (st.pendingDueAt === null || st.pendingDueAt > now) continue;
      st.pendingDueAt = null;
      const change = this.publishIfChanged(agent, st, now);
      if (change) out.push(change);
    }
    return out;
  }

  /** When the earliest held-back change becomes due, null when none is waiting. */
  nextDueAt(): number | null {
    let next: number | null = null;
    for (const st of this.agents.values())
      if (st.pendingDueAt !== null && (next === null || st.pendingDueAt < next)) next = st.pendingDueAt;
    return next;
  }

  /** The agent's current activity, for /api/v1/state; an agent never seen is unknown. */
  snapshot(agent: string): ActivitySnapshot {
    const st = this.agents.get(agent);
    if (!st) return { activity: 'unknown', current_action: null, last_activity_at: null };
    return { activity: st.activity, current_action: st.currentAction, last_activity_at: st.lastActivityAt };
  }

  /**
   * Drops a removed agent: the map does not grow with every agent ever seen, and an agent spawned later under the
   * name starts with no history.
   */
  forget(agent: string): void {
    this.agents.delete(agent);
  }

  /**
   * A renamed agent's entry moves to its new name, with what subscribers were told (the rename's agent_spawned carried
   * it). Its session is renamed too, so the next sweep takes a fresh baseline under the new session name.
   */
  rename(from: string, to: string): void {
    const st = this.agents.get(from);
    this.agents.delete(from);
    if (!st) return;
    st.session = null;
    st.baseline = null;
    this.agents.set(to, st);
  }

  private state(agent: string, now: number): AgentState {
    let st = this.agents.get(agent);
    if (!st) {
      st = {
        session: null,
        baseline: null,
        lastAdvanceAt: now,
        turnTailUntil: null,
        activity: 'unknown',
        currentAction: null,
        lastActivityAt: null,
        // Subscribers that have not been told anything treat the agent as unknown (what /state says).
        publishedKey: UNKNOWN_KEY,
        lastPublishedAt: null,
        pendingDueAt: null,
      };
      this.agents.set(agent, st);
    }
    return st;
  }

  private apply(st: AgentState, session: string, info: SessionInfo, pane: string | null | undefined, now: number) {
    const activityMs = info.activity * 1000;
    // A new session, or one whose activity went backwards (recreated under the same name between sweeps), has no
    // usable baseline.
    if (st.session !== session || st.baseline === null || info.activity < st.baseline) {
      st.session = session;
      st.baseline = info.activity;
      st.lastAdvanceAt = now;
      st.lastActivityAt = activityMs;
      st.turnTailUntil = null;
      st.activity = now - activityMs > this.idleMs ? 'idle' : 'unknown';
      st.currentAction = null;
      return;
    }
    if (advanced(st.baseline, info.activity)) {
      st.baseline = info.activity;
      st.lastActivityAt = activityMs;
      if (st.turnTailUntil !== null && now <= st.turnTailUntil) return;
      st.turnTailUntil = null;
      st.lastAdvanceAt = now;
      st.activity = 'working';
      // Not captured (or the capture failed): keep the last line seen rather than flicker to null.
      if (pane !== undefined) st.currentAction = pane === null ? null : { kind: 'pane', detail: pane };
      return;
    }
    if (now - st.lastAdvanceAt > this.idleMs) {
      st.activity = 'idle';
      st.currentAction = null;
    }
  }

  private toUnknown(st: AgentState): void {
    st.session = null;
    st.baseline = null;
    st.activity = 'unknown';
    st.currentAction = null;
  }

  private publishable(now: number): ActivityChange[] {
    const out: ActivityChange[] = [];
    for (const [agent, st] of this.agents) {
      if (publishKey(st.activity, st.currentAction) === st.publishedKey) {
        // Back to what subscribers already have: a held-back change has nothing left to say.
        st.pendingDueAt = null;
        continue;
      }
      const dueAt = st.lastPublishedAt === null ? now : st.lastPublishedAt + this.minIntervalMs;
      if (dueAt > now) {
        // Held back; the publish at dueAt carries whatever the state is by then, so the last change always goes out.
        st.pendingDueAt = dueAt;
        continue;
      }
      st.pendingDueAt = null;
      const change = this.publishIfChanged(agent, st, now);
      if (change) out.push(change);
    }
    return out;
  }

  private publishIfChanged(agent: string, st: AgentState, now: number): ActivityChange | null {
    const key = publishKey(st.activity, st.currentAction);
    if (key === st.publishedKey) return null;
    st.publishedKey = key;
    st.lastPublishedAt = now;
    return {
      agent,
      activity: st.activity,
      current_action: st.currentAction,
      last_activity_at: st.lastActivityAt,
    };
  }
}
