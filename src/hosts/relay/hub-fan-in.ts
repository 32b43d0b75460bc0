import type { Clock, TimerHandle } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { rfc3339 } from '../../core/time.js';
import type { EventBus } from '../../events/bus.js';
import type { Agent, AgentMessage, Task, TaskRun } from '../../wire/fleet.js';
import type { HostEntry, HostStatus } from '../../wire/host.js';
import type { Cursor } from '../follower/follow-rules.js';
import { HostFollower } from '../follower/host-follower.js';
import type { HostClient } from '../host-client.js';
import type { HostCursors } from './host-cursors.js';
import { HostView } from './host-view.js';
import { qualifyEvent } from './qualify.js';

export interface HubFanInDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  /** client.hosts as leo.yaml says now. */
  configured(): Record<string, { url: string }>;
  /** The peer token the hub holds for a host, or null. */
  token(name: string): string | null;
  connect(url: string): HostClient;
  cursors: HostCursors;
}

/** How often a host's cursor and fleet are saved while events move them (and always at a refetch and at stop). */
const SAVE_MS = 10_000;

interface Followed {
  url: string;
  follower: HostFollower;
  view: HostView;
  /** What the view agrees with: the follower's position when the view last changed. */
  seen: Cursor | null;
  dirty: boolean;
}

/**
 * The hub's fan-in (issue 31): one follower per host in client.hosts, each event renamed and re-published on the
 * hub's own bus (its own seq), each host's fleet kept in memory for the hub's /api/v1/state, each host's status
 * published as it changes. Followers are independent, so a hung host delays no other. Hosts come and go with the
 * config (sync() on each reload).
 */
export class HubFanIn {
  private readonly followed = new Map<string, Followed>();
  private saver: TimerHandle | null = null;

  constructor(private readonly deps: HubFanInDeps) {}

  start(): void {
    this.sync();
    this.saver = this.deps.clock.setInterval(() => this.saveDirty(), SAVE_MS);
  }

  stop(): void {
    this.saver?.cancel();
    for (const name of [...this.followed.keys()]) this.drop(name, false);
  }

  /** Follows the hosts the config names now: new ones start, removed ones stop, a changed URL restarts. */
  sync(): void {
    const configured = this.deps.configured();
    for (const [name, f] of this.followed)
      if (configured[name]?.url !== f.url || !this.deps.token(name)) this.drop(name, true);
    for (const [name, { url }] of Object.entries(configured)) if (!this.followed.has(name)) this.follow(name, url);
  }

  agents(): Agent[] {
    return this.all((v) => v.agents);
  }

  tasks(): Task[] {
    return this.all((v) => v.tasks);
  }

  recentRuns(): TaskRun[] {
    return this.all((v) => v.recent_runs);
  }

  recentMessages(): AgentMessage[] {
    return this.all((v) => v.recent_messages);
  }

  /** Each followed host as GET /api/v1/hosts lists it, from what its follower knows now (no probe). */
  entries(): HostEntry[] {
    return [...this.followed.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, f]) => this.entryOf(name, f));
  }

  /** Null while the host's first attempt is under way (just added, or the hub just started): nothing known yet. */
  entry(name: string): HostEntry | null {
    const f = this.followed.get(name);
    if (!f || (!f.follower.info && !f.follower.error)) return null;
    return this.entryOf(name, f);
  }

  private entryOf(name: string, f: Followed): HostEntry {
    const greeted = f.follower.info;
    const status = f.follower.status;
    return {
      name,
      url: f.url,
      status,
      last_seen: this.lastSeen(name, f),
      version: greeted?.info.version ?? null,
      host_id: greeted?.info.host_id ?? null,
      rtt_ms: greeted?.rttMs ?? null,
      ...(status === 'online' || !f.follower.error ? {} : { error: f.follower.error }),
    };
  }

  private lastSeen(name: string, f: Followed): string | null {
    const heard = f.follower.lastSeen;
    return heard === null ? this.deps.cursors.lastSeen(name) : rfc3339(heard);
  }

  private all<T>(pick: (v: ReturnType<HostView['data']>) => T[]): T[] {
    return [...this.followed.values()].flatMap((f) => pick(f.view.data()));
  }

  private follow(name: string, url: string): void {
    const token = this.deps.token(name);
    if (!token) {
      this.deps.logger.warn({ host: name }, 'no peer token for this host: not followed (remove and add it again)');
      return;
    }
    const view = new HostView(name);
    const saved = this.deps.cursors.load(name);
    if (saved) view.restore(saved.view);
    let followed: Followed | undefined;
    const follower = new HostFollower({
      client: this.deps.connect(url),
      token,
      clock: this.deps.clock,
      ...(saved ? { from: { cursor: saved.cursor } } : {}),
      subscriber: {
        event: (e) => {
          const q = qualifyEvent(e.type, e.data, name);
          if (!q || !followed) return;
          const resync = view.apply(q);
          followed.seen = follower.position;
          followed.dirty = true;
          this.deps.bus.publish(q.type, q.fields);
          if (resync) follower.resync();
        },
        snapshot: (s) => {
          view.reset(s);
          if (!followed) return;
          followed.seen = follower.position;
          this.save(name, followed);
          this.publishState(name, view);
        },
        status: (status, why) => this.statusChanged(name, status, why),
      },
    });
    followed = { url, follower, view, seen: saved?.cursor ?? null, dirty: false };
    this.followed.set(name, followed);
    // What the hub held before its restart is shown at once, as last known, until the host answers.
    if (saved) this.publishState(name, view);
    follower.start();
  }

  /** Stops following; `forget`: the host left the config, so readers drop its agents. */
  private drop(name: string, forget: boolean): void {
    const f = this.followed.get(name);
    if (!f) return;
    f.follower.stop();
    this.followed.delete(name);
    if (forget) this.deps.bus.publish('host_state', { host: name, agents: [], tasks: [], recent_runs: [] });
    else if (f.dirty) this.save(name, f);
  }

  private statusChanged(name: string, status: HostStatus, why: string | null): void {
    const f = this.followed.get(name);
    if (!f) return;
    const lastSeen = this.lastSeen(name, f);
    if (lastSeen) this.deps.cursors.seen(name, lastSeen);
    this.deps.logger.info({ host: name, status, why }, 'host status');
    this.deps.bus.publish('host_status', { host: name, status, last_seen: lastSeen, error: why });
  }

  private publishState(name: string, view: HostView): void {
    const { agents, tasks, recent_runs } = view.data();
    this.deps.bus.publish('host_state', { host: name, agents, tasks, recent_runs });
  }

  private saveDirty(): void {
    for (const [name, f] of this.followed) if (f.dirty) this.save(name, f);
  }

  private save(name: string, f: Followed): void {
    f.dirty = false;
    if (f.seen) this.deps.cursors.save(name, { cursor: f.seen, view: f.view.data() });
  }
}
