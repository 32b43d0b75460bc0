import { computed, signal } from '@preact/signals';
import { PINNED_AGENT, type Thread } from '../../wire/message.js';
import type { Agent, StateSnapshot } from '../../wire/fleet.js';
import type { FleetEvent } from '../api/events.js';

/** The fleet as the snapshot-then-stream contract builds it: the snapshot replaces it, events patch it. */
export const agents = signal<ReadonlyMap<string, Agent>>(new Map());
export const unread = signal<ReadonlyMap<string, number>>(new Map());
/** The threads that hold messages, agent or not (the daemon lists both). */
export const threadNames = signal<ReadonlySet<string>>(new Set());
export const loaded = signal(false);

const pinnedFirst = (a: string, b: string) => Number(b === PINNED_AGENT) - Number(a === PINNED_AGENT);

/** The assistant first, then by display name. */
export const fleet = computed(() =>
  [...agents.value.values()].sort(
    (a, b) => pinnedFirst(a.name, b.name) || a.display_name.localeCompare(b.display_name),
  ),
);

/** One row of the fleet: an agent, or a thread whose agent does not exist (task cards land there). */
export interface FleetRow {
  name: string;
  agent?: Agent;
}

/**
 * What the fleet lists: every agent, and every thread holding messages that no agent owns, so a task's card posted
 * to an owner that was never spawned is seen. The assistant first, then by name.
 */
export const fleetRows = computed<FleetRow[]>(() => {
  const rows: FleetRow[] = fleet.value.map((agent) => ({ name: agent.name, agent }));
  for (const name of threadNames.value) if (!agents.value.has(name)) rows.push({ name });
  const label = (r: FleetRow) => r.agent?.display_name ?? r.name;
  return rows.sort((a, b) => pinnedFirst(a.name, b.name) || label(a).localeCompare(label(b)));
});

export function applySnapshot(state: StateSnapshot): void {
  agents.value = new Map(state.agents.map((a) => [a.name, a]));
  loaded.value = true;
}

export function applyThreads(threads: readonly Thread[]): void {
  unread.value = new Map(threads.map((t) => [t.agent, t.unread]));
  threadNames.value = new Set(threads.filter((t) => t.last_message).map((t) => t.agent));
}

export function setUnread(agent: string, count: number): void {
  const next = new Map(unread.value);
  next.set(agent, count);
  unread.value = next;
}

/**
 * Adds or replaces one agent: a spawn's event, or what a fleet operation answered. Neither carries the workspace's
 * change summary (the state's own), which is sent again only when it changes: the one held is kept.
 */
export function upsertAgent(agent: Agent): void {
  const next = new Map(agents.value);
  const changes = agents.value.get(agent.name)?.changes;
  next.set(agent.name, agent.changes === undefined && changes !== undefined ? { ...agent, changes } : agent);
  agents.value = next;
}

/** Drops one agent at once (removed, or renamed away); the next snapshot agrees. */
export function dropAgent(name: string): void {
  if (!agents.value.has(name)) return;
  const next = new Map(agents.value);
  next.delete(name);
  agents.value = next;
}

function patch(name: string, change: (a: Agent) => Agent): void {
  const current = agents.value.get(name);
  if (!current) return;
  const next = new Map(agents.value);
  next.set(name, change(current));
  agents.value = next;
}

/**
 * Applies one event. Returns what the caller should refetch: an agent_stopped may be a deletion or a rename's first
 * half (the wire cannot tell), and chat events move unread counts.
 */
export function applyEvent(e: FleetEvent): 'state' | 'threads' | null {
  switch (e.type) {
    case 'agent_spawned':
      upsertAgent(e.data.agent);
      return null;
    case 'agent_state_changed': {
      const { agent, seq: _seq, at: _at, ...change } = e.data;
      patch(agent, (a) => ({ ...a, ...change }));
      return null;
    }
    case 'agent_stopped':
      patch(e.data.agent, (a) => ({ ...a, status: 'stopped', activity: 'unknown', current_action: null }));
      return 'state';
    case 'agent_activity': {
      const { agent, activity, current_action, last_activity_at } = e.data;
      patch(agent, (a) => ({ ...a, activity, current_action, last_activity_at }));
      return null;
    }
    case 'agent_appearance_changed': {
      const { agent, appearance } = e.data;
      patch(agent, (a) => {
        const { appearance: _old, ...rest } = a;
        return appearance ? { ...rest, appearance } : rest;
      });
      return null;
    }
    case 'agent_usage':
      patch(e.data.agent, (a) => ({ ...a, usage: e.data.totals }));
      return null;
    case 'agent_turn_error':
      patch(e.data.agent, (a) => ({ ...a, turn_error: e.data.turn_error }));
      return null;
    case 'agent_needs_input':
      patch(e.data.agent, (a) => ({ ...a, needs_input: e.data.needs_input }));
      return null;
    case 'agent_changes':
      patch(e.data.agent, (a) => ({ ...a, changes: e.data.changes }));
      return null;
    case 'chat.message':
    case 'chat.updated':
      return 'threads';
    case 'chat.read':
      // Another device (or this one) read the thread: its badge follows at once, no refetch needed.
      setUnread(e.data.agent, e.data.unread);
      return null;
    case 'host_state': {
      // The hub refetched that host: what it sent is all of that host's fleet now. Its threads may have moved
      // meanwhile with no event (messages stored while the hub could not hear it), so the list is fetched again.
      const next = new Map([...agents.value].filter(([, a]) => a.host !== e.data.host));
      for (const a of e.data.agents) next.set(a.name, a);
      agents.value = next;
      return 'threads';
    }
    case 'host_status':
    case 'move_progress':
    case 'hello':
    case 'agent_message':
    case 'task_run_started':
    case 'task_run_succeeded':
    case 'task_run_failed':
      return null;
  }
}
