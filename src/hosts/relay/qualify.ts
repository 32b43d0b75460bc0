import { addressOf } from '../../wire/agent-address.js';
import { EVENT_PAYLOADS, type EventData, type EventFields } from '../../wire/events.js';
import type { EventType } from '../../wire/event-types.js';
import type { Agent, AgentMessage, StateSnapshot, Task, TaskRun } from '../../wire/fleet.js';
import type { Message, Thread } from '../../wire/message.js';

/**
 * What a hub does to a followed host's words before its own readers see them (issue 31, Addressing): every agent
 * name becomes `name@host`, and every agent, task and run carries `host`. Pure, so the fan-in, the proxied answers and
 * the tests agree on one renaming.
 */

export const qualifyAgent = (a: Agent, host: string): Agent => ({ ...a, name: addressOf(a.name, host), host });
export const qualifyMessage = (m: Message, host: string): Message => ({ ...m, agent: addressOf(m.agent, host) });
/** A host's thread as the hub lists it: renamed, its last message too. Only the hub's own assistant is pinned. */
export const qualifyThread = (t: Thread, host: string): Thread => ({
  ...t,
  agent: addressOf(t.agent, host),
  last_message: t.last_message && qualifyMessage(t.last_message, host),
  pinned: false,
});
const qualifyRun = (r: TaskRun, host: string): TaskRun => ({ ...r, host });
const qualifyTask = (t: Task, host: string): Task => ({ ...t, host });
const qualifyPair = (m: AgentMessage, host: string): AgentMessage => ({
  ...m,
  to: addressOf(m.to, host),
  ...(m.from === undefined ? {} : { from: addressOf(m.from, host) }),
});

type Renamer<T extends EventType> = ((d: EventData<T>, host: string) => EventData<T>) | null;
/** One field of `d` that names an agent, renamed: a proxied answer's `agent`, `name` or `to`. */
export const qualifyField = <K extends string, D extends Record<K, string>>(d: D, key: K, host: string): D => ({
  ...d,
  [key]: addressOf(d[key], host),
});
const named = <D extends { agent: string }>(d: D, host: string): D => qualifyField(d, 'agent', host);

/**
 * How each event type is renamed; null for the hub's own types, which a host never relays (a hub does not follow
 * another hub's hosts through it).
 */
const RENAME: { [T in EventType]: Renamer<T> } = {
  agent_spawned: (d, host) => ({ ...d, agent: qualifyAgent(d.agent, host) }),
  agent_stopped: named,
  agent_state_changed: named,
  agent_appearance_changed: named,
  agent_activity: named,
  agent_message: (d, host) => ({ ...d, ...qualifyPair(d, host) }),
  agent_usage: named,
  agent_turn_error: named,
  agent_needs_input: named,
  agent_changes: named,
  task_run_started: (d, host) => ({ ...d, run: qualifyRun(d.run, host) }),
  task_run_succeeded: (d, host) => ({ ...d, run: qualifyRun(d.run, host) }),
  task_run_failed: (d, host) => ({ ...d, run: qualifyRun(d.run, host) }),
  host_status: null,
  host_state: null,
  move_progress: null,
  'chat.message': (d, host) => ({ ...d, message: qualifyMessage(d.message, host) }),
  'chat.updated': (d, host) => ({ ...d, message: qualifyMessage(d.message, host) }),
  'chat.read': named,
};

export interface QualifiedEvent<T extends EventType = EventType> {
  type: T;
  fields: EventFields<T>;
  /** When the host published it: an agent_message's time in a snapshot's recent_messages. */
  at: string;
}

/**
 * A host's event as the hub re-publishes it: renamed, with `host` set and without the host's seq and time (the hub's
 * bus stamps its own). Null for a type this hub does not know (a newer host's) or data its schema refuses.
 */
export function qualifyEvent(type: string, data: unknown, host: string): QualifiedEvent | null {
  if (!Object.hasOwn(RENAME, type)) return null;
  const t = type as EventType;
  const rename = RENAME[t] as Renamer<EventType>;
  if (!rename) return null;
  const parsed = EVENT_PAYLOADS[t].safeParse(data);
  if (!parsed.success) return null;
  const { seq: _seq, at, ...renamed } = rename(parsed.data as EventData<EventType>, host);
  return { type: t, fields: { ...renamed, host } as EventFields<EventType>, at };
}

/** The part of a host's snapshot a hub shows, renamed: its agents, tasks, runs and agent-to-agent messages. */
export function qualifySnapshot(s: StateSnapshot, host: string) {
  return {
    agents: s.agents.map((a) => qualifyAgent(a, host)),
    tasks: s.tasks.map((t) => qualifyTask(t, host)),
    recent_runs: s.recent_runs.map((r) => qualifyRun(r, host)),
    recent_messages: s.recent_messages.map((m) => qualifyPair(m, host)),
  };
}
