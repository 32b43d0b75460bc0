import type { Agent, TaskRun } from '../../src/wire/fleet.js';
import type { Message } from '../../src/wire/message.js';
import { EVENT_PAYLOADS, type EventData, type EventFields } from '../../src/wire/events.js';
import type { EventType } from '../../src/wire/event-types.js';

/**
 * One event of each type as the stream carries it, made by the event table's own schema (wire/events.ts) from data a
 * publisher could hand the bus: a fixture the table would refuse fails where it is made, so the app's stores are
 * tested on what the daemon sends, not on shapes a test re-declares.
 */

const AT = '2026-01-02T03:04:05.000Z';

export function agentFixture(over: Partial<Agent> = {}): Agent {
  return {
    name: 'den',
    display_name: 'Den',
    template: 'default',
    repo: '/repo',
    workspace: '/repo/.leo/den',
    branch: 'leo/den',
    status: 'running',
    activity: 'idle',
    model: 'sonnet',
    harness: 'claude',
    restarts: 0,
    wake_on_message: false,
    started_at: AT,
    last_activity_at: AT,
    current_action: null,
    environments: [],
    environments_source: 'default',
    environment_error: null,
    stop_reason: null,
    ...over,
  };
}

export function messageFixture(over: Partial<Message> = {}): Message {
  return {
    id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
    agent: 'den',
    direction: 'out',
    kind: 'text',
    text: 'done',
    state: '',
    attachments: [],
    ts: AT,
    ...over,
  };
}

const run: TaskRun = {
  id: 'run-1',
  task: 'nightly',
  status: 'running',
  started_at: AT,
  error: null,
  workspace: '/repo',
  model: 'sonnet',
  harness: 'claude',
};

const totals = {
  turns: 1,
  unpriced_turns: 0,
  input_tokens: 10,
  output_tokens: 5,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  cost_usd: 0.01,
};

/** What a publisher hands the bus for each type: the compiler holds this table to the event table. */
const FIELDS: { [T in EventType]: EventFields<T> } = {
  agent_spawned: { agent: agentFixture() },
  agent_stopped: { agent: 'den', wake_on_message: false },
  agent_state_changed: {
    agent: 'den',
    status: 'stopped',
    wake_on_message: true,
    started_at: null,
    restarts: 2,
    stop_reason: 'it kept exiting at start',
  },
  agent_appearance_changed: { agent: 'den', appearance: { emoji: '🦊', color: '#d97706' } },
  agent_activity: {
    agent: 'den',
    activity: 'working',
    current_action: { kind: 'pane', detail: 'Reading files' },
    last_activity_at: AT,
  },
  agent_message: { from: 'den', to: 'fox' },
  agent_usage: {
    agent: 'den',
    harness: 'claude',
    model: 'sonnet',
    turn: { input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0, cost_usd: 0.01 },
    totals,
  },
  agent_turn_error: { agent: 'den', turn_error: { at: AT, message: 'the provider refused the key' } },
  agent_needs_input: { agent: 'den', needs_input: { reason: 'dialog', text: 'Approve the key?', at: AT } },
  agent_changes: { agent: 'den', changes: { files: 3, insertions: 120, deletions: 4, ahead: 2, behind: 0 } },
  task_run_started: { run },
  task_run_succeeded: { run: { ...run, status: 'succeeded', ended_at: AT, duration_ms: 1000 } },
  task_run_failed: { run: { ...run, status: 'failed', ended_at: AT, duration_ms: 1000, error: 'exit 1' } },
  host_status: { host: 'box', status: 'stale', last_seen: AT, error: 'nothing heard for 40000 ms' },
  host_state: { host: 'box', agents: [agentFixture({ name: 'den@box', host: 'box' })], tasks: [], recent_runs: [] },
  move_progress: {
    move: {
      id: '01JMOVEAAAAAAAAAAAAAAAAAAA',
      kind: 'move',
      agent: 'den@box',
      to: 'cloud',
      as: 'den',
      force: false,
      step: 'ship',
      progress: { bytes_done: 1024, bytes_total: 4096 },
      runs: 'source',
      undo: [],
      failure: null,
      attempt: 1,
      created_at: AT,
      updated_at: AT,
    },
  },
  'chat.message': { message: messageFixture() },
  'chat.updated': { message: messageFixture({ kind: 'ask', state: 'answered' }), change: 'answer' },
  'chat.read': { agent: 'den', read_up_to: '01JAAAAAAAAAAAAAAAAAAAAAAA', unread: 0 },
};

export const EVENT_TYPES = Object.keys(EVENT_PAYLOADS) as EventType[];

let seq = 0;

/** Type `type`'s event data as a reader receives it: the table's fixture, with `over` laid on it, stamped as the bus does. */
export function eventFixture<T extends EventType>(type: T, over: Partial<EventFields<T>> = {}): EventData<T> {
  return EVENT_PAYLOADS[type].parse({ seq: ++seq, at: AT, ...FIELDS[type], ...over }) as EventData<T>;
}
