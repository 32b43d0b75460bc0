import type { Principal } from './token-kinds.js';

/**
 * Who may receive an event on /api/v1/events. `fleet`: every reader (names, states, activity, task runs — what
 * /api/v1/state shows to API clients too). `chat`: only those who may read the conversations (operator, paired
 * devices, peer hubs, the socket), because the event carries what the chat routes refuse to API clients.
 */
export type EventAudience = 'fleet' | 'chat';

/**
 * Every event type the daemon publishes, with its audience. The bus takes only these names, so a new event type
 * cannot be published without saying who may see it (and the access matrix fails until its table has the type).
 */
export const EVENT_AUDIENCE = {
  agent_spawned: 'fleet',
  agent_stopped: 'fleet',
  agent_state_changed: 'fleet',
  agent_appearance_changed: 'fleet',
  agent_activity: 'fleet',
  // The pair only, never the text (observability-api.md, AgentMessage).
  agent_message: 'fleet',
  // A turn's token counts and cost, and the agent's new sums: figures only, like /api/v1/state's usage.
  agent_usage: 'fleet',
  // A failed turn's reason in plain words (the provider's own text stays in the thread): as /api/v1/state shows it.
  agent_turn_error: 'fleet',
  // The agent's terminal holds it (a dialog's question, or that its box has unsent text, never that text): as
  // /api/v1/state shows it, like current_action's pane line.
  agent_needs_input: 'fleet',
  // The workspace's changes in figures (files, lines, commits ahead and behind), never a path: as /api/v1/state.
  agent_changes: 'fleet',
  task_run_started: 'fleet',
  task_run_succeeded: 'fleet',
  task_run_failed: 'fleet',
  // A hub's followed host: its status, and its fleet whenever the hub refetched it (names and states, as above).
  host_status: 'fleet',
  host_state: 'fleet',
  // A hub's move or copy of an agent (issue 32): names, steps and byte counts, like the fleet's own events.
  move_progress: 'fleet',
  // Whole messages: text, answers, transcripts, permission prompts' command lines, task cards, reminders, notes.
  'chat.message': 'chat',
  'chat.updated': 'chat',
  // Which thread was read up to where: it says when the owner reads which agent.
  'chat.read': 'chat',
} as const satisfies Record<string, EventAudience>;

export type EventType = keyof typeof EVENT_AUDIENCE;

/** A name nobody registered (only a cast can publish one) reaches chat readers alone: closed by default. */
export function audienceOf(type: string): EventAudience {
  return (EVENT_AUDIENCE as Record<string, EventAudience>)[type] ?? 'chat';
}

/** Every audience, each numbering its own stream (bus.ts). */
export const AUDIENCES = ['fleet', 'chat'] as const satisfies readonly EventAudience[];

/**
 * The audience a principal's stream belongs to; the route already refused everyone else (agents, anonymous callers).
 * Those who may read the conversations belong to `chat` and receive `fleet` events too (receives()).
 */
export function readerAudience(principal: Principal): EventAudience {
  return principal.kind === 'operator' ||
    principal.kind === 'device' ||
    principal.kind === 'peer' ||
    principal.kind === 'socket'
    ? 'chat'
    : 'fleet';
}

/** Whether a stream of audience `reader` carries an event published to `event`. */
export function receives(reader: EventAudience, event: EventAudience): boolean {
  return reader === 'chat' || event === 'fleet';
}
