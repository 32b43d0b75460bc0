import { z } from 'zod';
import { ReadMarker, Message } from './message.js';
import { component } from './components.js';
import {
  Agent,
  AgentActivityEvent,
  AgentMessage,
  AgentNeedsInputEvent,
  AgentStatus,
  AgentTurnErrorEvent,
  Appearance,
  Task,
  TaskRun,
} from './fleet.js';
import { HostStatusEvent } from './host.js';
import { MoveProgressEvent } from './move.js';
import { AgentUsageEvent } from './usage.js';
import { AgentChangesEvent } from './changes.js';
import type { EventType } from './event-types.js';

/** What the bus stamps on every event's data (bus.ts): its place in the stream and when it was published. */
const Stamp = { seq: z.number().int(), at: z.string() };
/**
 * On a hub, an event of a followed host is re-published with the host's `client.hosts` key, its agent names as
 * `name@host`, and the hub's own seq.
 */
const Relayed = { host: z.string().optional() };
const stamped = <S extends z.ZodRawShape>(shape: S) => z.object({ ...Stamp, ...Relayed, ...shape });

/**
 * The data of each event GET /api/v1/events carries, by event type: the OpenAPI document's Event.<type> components
 * (no route answers them, so they are named here). A type the bus can publish has to have one.
 */
export const EVENT_PAYLOADS = {
  agent_spawned: stamped({ agent: Agent }),
  agent_stopped: stamped({ agent: z.string(), wake_on_message: z.boolean() }),
  agent_state_changed: stamped({
    agent: z.string(),
    status: AgentStatus,
    wake_on_message: z.boolean(),
    // What a lifecycle change moves (Agent's fields of the same names): an event is applied without a refetch.
    started_at: Agent.shape.started_at,
    restarts: Agent.shape.restarts,
    stop_reason: Agent.shape.stop_reason,
    // Present when the agent's environments changed (Agent's fields of the same names).
    environments: Agent.shape.environments.optional(),
    environments_source: Agent.shape.environments_source.optional(),
    environment_error: Agent.shape.environment_error.optional(),
    // Present when the agent was marked moved (issue 32): the dormant record's fields, so no refetch is needed.
    moved_to: Agent.shape.moved_to,
    moved_at: Agent.shape.moved_at,
    moved_as: Agent.shape.moved_as,
  }),
  agent_appearance_changed: stamped({ agent: z.string(), appearance: Appearance.nullable() }),
  agent_activity: stamped(AgentActivityEvent.shape),
  agent_message: stamped(AgentMessage.shape),
  agent_usage: stamped(AgentUsageEvent.shape),
  agent_turn_error: stamped(AgentTurnErrorEvent.shape),
  agent_needs_input: stamped(AgentNeedsInputEvent.shape),
  agent_changes: stamped(AgentChangesEvent.shape),
  task_run_started: stamped({ run: TaskRun }),
  task_run_succeeded: stamped({ run: TaskRun }),
  task_run_failed: stamped({ run: TaskRun }),
  // These two are the hub's own, about a host: `host` is always set (no Relayed field to merge with).
  host_status: z.object({ ...Stamp, ...HostStatusEvent.shape }),
  // Everything of the host the hub holds, replacing what a reader held for it: sent after each refetch of its state.
  host_state: z.object({
    ...Stamp,
    host: z.string(),
    agents: z.array(Agent),
    tasks: z.array(Task),
    recent_runs: z.array(TaskRun),
  }),
  // The hub's own too: its operation whole, after each transition and shipped chunk.
  move_progress: z.object({ ...Stamp, ...MoveProgressEvent.shape }),
  'chat.message': stamped({ message: Message }),
  'chat.updated': stamped({ message: Message, change: z.enum(['state', 'answer', 'transcript', 'attachments']) }),
  'chat.read': stamped(ReadMarker.shape),
} satisfies Record<EventType, z.ZodType>;

/** One event's data as a reader receives it. */
export type EventData<T extends EventType> = z.infer<(typeof EVENT_PAYLOADS)[T]>;

/** What a publisher hands the bus for one event: its data without the stamp, which the bus adds. */
export type EventFields<T extends EventType> = Omit<z.input<(typeof EVENT_PAYLOADS)[T]>, keyof typeof Stamp>;

/** The first event of every stream: where it starts (the next event is seq + 1), this boot, the features on. */
export const HelloEvent = component(
  'Event.hello',
  z.object({ ...Stamp, boot_id: z.string(), features: z.array(z.string()) }),
);
export type HelloEvent = z.infer<typeof HelloEvent>;

for (const [type, schema] of Object.entries(EVENT_PAYLOADS)) component(`Event.${type}`, schema);
