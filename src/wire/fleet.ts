import { z } from 'zod';
import { UsageTotals } from './usage.js';
import { ChangeSummary } from './changes.js';
import { component } from './components.js';
import { HostEntry } from './host.js';

/**
 * The observability API's wire shapes (observability-api.md), one schema each, shared by routes, events and tests.
 * Consumers must ignore unknown fields, so these only ever grow.
 */

export const AgentStatus = z.enum(['starting', 'running', 'stopped', 'restoring']);
export type AgentStatus = z.infer<typeof AgentStatus>;

export const Activity = z.enum(['working', 'idle', 'unknown']);
export type Activity = z.infer<typeof Activity>;

export const CurrentAction = z.object({ kind: z.literal('pane'), detail: z.string() });
export type CurrentAction = z.infer<typeof CurrentAction>;

/**
 * The agent_activity event's payload (beside the bus's seq and at). It carries last_activity_at too, so a consumer's
 * copy of the Agent stays whole from events alone.
 */
export const AgentActivityEvent = z.object({
  agent: z.string(),
  activity: Activity,
  current_action: CurrentAction.nullable(),
  last_activity_at: z.string().nullable(),
});
export type AgentActivityEvent = z.infer<typeof AgentActivityEvent>;

/**
 * The agent's last turn failed (no key, the provider refused or erred): when, and why in plain words. Beside
 * `activity`, not in it: the observability spec fixes activity's values. Cleared when its next turn starts.
 */
export const TurnError = z.object({ at: z.string(), message: z.string() });
export type TurnError = z.infer<typeof TurnError>;

/** The agent_turn_error event's payload: the agent's turn_error as it now is (null: cleared). */
export const AgentTurnErrorEvent = z.object({ agent: z.string(), turn_error: TurnError.nullable() });
export type AgentTurnErrorEvent = z.infer<typeof AgentTurnErrorEvent>;

/**
 * What holds the agent that only a person at its terminal can clear (leo-chat.md, the agent's own needs_input alert):
 * a dialog that is not a permission prompt (an API key to approve, a login), or text someone left unsent in its input
 * box. `text` says so in plain words and quotes the dialog's question: untrusted display text from the pane.
 */
export const NeedsInputHold = z.object({ reason: z.enum(['dialog', 'unsent_text']), text: z.string() });
export type NeedsInputHold = z.infer<typeof NeedsInputHold>;

/** The agent's needs_input alert: since when, and what holds it. Cleared when that goes, or a card asks instead. */
export const NeedsInput = NeedsInputHold.extend({ at: z.string() });
export type NeedsInput = z.infer<typeof NeedsInput>;

/** The agent_needs_input event's payload: the agent's needs_input as it now is (null: cleared). */
export const AgentNeedsInputEvent = z.object({ agent: z.string(), needs_input: NeedsInput.nullable() });
export type AgentNeedsInputEvent = z.infer<typeof AgentNeedsInputEvent>;

export const Appearance = z.object({
  emoji: z.string().optional(),
  color: z.string().optional(),
  emoji_source: z.string().optional(),
  color_source: z.string().optional(),
});
export type Appearance = z.infer<typeof Appearance>;

export const Agent = component(
  'Agent',
  z.object({
    name: z.string(),
    display_name: z.string(),
    template: z.string(),
    repo: z.string(),
    workspace: z.string(),
    branch: z.string(),
    status: AgentStatus,
    activity: Activity,
    model: z.string(),
    harness: z.string(),
    restarts: z.number().int(),
    wake_on_message: z.boolean(),
    started_at: z.string().nullable(),
    last_activity_at: z.string().nullable(),
    current_action: CurrentAction.nullable(),
    environments: z.array(z.string()),
    environments_source: z.enum(['override', 'default']),
    environment_error: z.string().nullable(),
    /** Why the daemon stopped this agent by itself (it kept exiting at start, it could not be restored); else null. */
    stop_reason: z.string().nullable(),
    appearance: Appearance.optional(),
    /**
     * On the dormant record a moved agent leaves (issue 32, the agent_move feature): the `client.hosts` key it went to
     * and when (RFC 3339); status stays stopped. Absent for an agent that lives here.
     */
    moved_to: z.string().optional(),
    moved_at: z.string().optional(),
    /** Beside moved_to when the move gave it another name there (`as`): its address is `moved_as@moved_to`. */
    moved_as: z.string().optional(),
    /** On a hub only: the followed host this agent runs on (its `client.hosts` key); `name` is then `name@host`. */
    host: z.string().optional(),
    /** /api/v1/state only (the agent_usage feature): the agent's all-time token and cost sums. */
    usage: UsageTotals.optional(),
    /** /api/v1/state only: the agent's last chat turn failed (see TurnError); null once its next turn starts. */
    turn_error: TurnError.nullable().optional(),
    /** /api/v1/state only: a terminal dialog or unsent text holds the agent (see NeedsInput); else null. */
    needs_input: NeedsInput.nullable().optional(),
    /**
     * /api/v1/state only (the agent_changes feature): its workspace's changes in figures; null when the workspace is no
     * git repository or is missing. Absent until first read (just after a start) and on a host too old to say.
     */
    changes: ChangeSummary.nullable().optional(),
  }),
);
export type Agent = z.infer<typeof Agent>;

export const TaskRunStatus = z.enum(['running', 'succeeded', 'failed']);

export const TaskRun = z.object({
  id: z.string(),
  task: z.string(),
  status: TaskRunStatus,
  started_at: z.string(),
  ended_at: z.string().nullable().optional(),
  duration_ms: z.number().int().optional(),
  error: z.string().nullable(),
  workspace: z.string(),
  model: z.string(),
  harness: z.string(),
  /** On a hub only: the followed host that ran it. */
  host: z.string().optional(),
});
export type TaskRun = z.infer<typeof TaskRun>;

export const Task = z.object({
  name: z.string(),
  schedule: z.string(),
  timezone: z.string(),
  enabled: z.boolean(),
  runtime: z.enum(['oneshot', 'persistent']),
  template: z.string().optional(),
  workspace: z.string(),
  model: z.string(),
  harness: z.string(),
  last_run_at: z.string().nullable(),
  next_run_at: z.string().nullable(),
  /** On a hub only: the followed host the task belongs to. */
  host: z.string().optional(),
});
export type Task = z.infer<typeof Task>;

export const AgentMessage = z.object({ from: z.string().optional(), to: z.string(), at: z.string() });
export type AgentMessage = z.infer<typeof AgentMessage>;

export const StateSnapshot = z.object({
  version: z.literal(1),
  server_time: z.string(),
  /**
   * The seq of the last event the caller's own /api/v1/events stream carried when this was taken: apply the events
   * after it. Streams are numbered per audience (an API client's skips chat events without a gap), so it is the
   * caller's, like hello.seq.
   */
  seq: z.number().int(),
  leo_version: z.string(),
  agents: z.array(Agent),
  tasks: z.array(Task),
  recent_runs: z.array(TaskRun),
  recent_messages: z.array(AgentMessage),
  /** On a hub only (the `hosts` feature): the hosts it follows and how each is; their agents are in `agents`. */
  hosts: z.array(HostEntry).optional(),
});
export type StateSnapshot = z.infer<typeof StateSnapshot>;
