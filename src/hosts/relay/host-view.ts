import type { EventData } from '../../wire/events.js';
import type { EventType } from '../../wire/event-types.js';
import type { Agent, AgentMessage, StateSnapshot, Task, TaskRun } from '../../wire/fleet.js';
import { qualifySnapshot, type QualifiedEvent } from './qualify.js';

/** What a hub holds of one host for its own /api/v1/state: the host's last snapshot, renamed, kept current by events. */
export interface HostViewData {
  agents: Agent[];
  tasks: Task[];
  recent_runs: TaskRun[];
  recent_messages: AgentMessage[];
}

/** As many as a host's own snapshot lists (RECENT_MESSAGES_CAP, the run history's recent page). */
const RECENT_MESSAGES = 50;
const RECENT_RUNS = 50;

/**
 * One host's fleet on the hub, as its snapshot said and its events since moved it, so the hub's snapshot answers from
 * memory. An event the stream cannot say whole (agent_stopped: a removal or a rename's first half) asks for a refetch.
 */
export class HostView {
  private agents = new Map<string, Agent>();
  private tasks: Task[] = [];
  private runs: TaskRun[] = [];
  private messages: AgentMessage[] = [];

  constructor(readonly host: string) {}

  /** Replaces everything with a snapshot the host just answered. */
  reset(snapshot: StateSnapshot): void {
    this.restore(qualifySnapshot(snapshot, this.host));
  }

  /** Replaces everything with what an earlier hub process held (already renamed). */
  restore(data: HostViewData): void {
    this.agents = new Map(data.agents.map((a) => [a.name, a]));
    this.tasks = data.tasks;
    this.runs = data.recent_runs;
    this.messages = data.recent_messages;
  }

  data(): HostViewData {
    return {
      agents: [...this.agents.values()],
      tasks: this.tasks,
      recent_runs: this.runs,
      recent_messages: this.messages,
    };
  }

  /** Applies one renamed event; true when only a refetch can make the view whole again. */
  apply(e: QualifiedEvent): boolean {
    const d = e.fields as EventData<EventType>;
    switch (e.type) {
      case 'agent_spawned':
        this.agents.set((d as EventData<'agent_spawned'>).agent.name, (d as EventData<'agent_spawned'>).agent);
        return false;
      case 'agent_stopped': {
        const { agent, wake_on_message } = d as EventData<'agent_stopped'>;
        this.patch(agent, { status: 'stopped', activity: 'unknown', current_action: null, wake_on_message });
        return true;
      }
      case 'agent_state_changed': {
        const { agent, seq: _s, at: _a, host: _h, ...change } = d as EventData<'agent_state_changed'>;
        this.patch(agent, change);
        return false;
      }
      case 'agent_appearance_changed': {
        const { agent, appearance } = d as EventData<'agent_appearance_changed'>;
        const current = this.agents.get(agent);
        if (current) {
          const { appearance: _old, ...rest } = current;
          this.agents.set(agent, appearance ? { ...rest, appearance } : rest);
        }
        return false;
      }
      case 'agent_activity': {
        const { agent, activity, current_action, last_activity_at } = d as EventData<'agent_activity'>;
        this.patch(agent, { activity, current_action, last_activity_at });
        return false;
      }
      case 'agent_usage': {
        const { agent, totals } = d as EventData<'agent_usage'>;
        this.patch(agent, { usage: totals });
        return false;
      }
      case 'agent_turn_error': {
        const { agent, turn_error } = d as EventData<'agent_turn_error'>;
        this.patch(agent, { turn_error });
        return false;
      }
      case 'agent_needs_input': {
        const { agent, needs_input } = d as EventData<'agent_needs_input'>;
        this.patch(agent, { needs_input });
        return false;
      }
      case 'agent_changes': {
        const { agent, changes } = d as EventData<'agent_changes'>;
        this.patch(agent, { changes });
        return false;
      }
      case 'agent_message': {
        // The host's time is the event's own (its fields lost it to the hub's stamp).
        const { from, to } = d as EventData<'agent_message'>;
        this.messages = [{ ...(from === undefined ? {} : { from }), to, at: e.at }, ...this.messages].slice(
          0,
          RECENT_MESSAGES,
        );
        return false;
      }
      case 'task_run_started':
      case 'task_run_succeeded':
      case 'task_run_failed': {
        const { run } = d as EventData<'task_run_started'>;
        this.runs = [run, ...this.runs.filter((r) => r.id !== run.id)].slice(0, RECENT_RUNS);
        if (e.type === 'task_run_started')
          this.tasks = this.tasks.map((t) => (t.name === run.task ? { ...t, last_run_at: run.started_at } : t));
        return false;
      }
      case 'host_status':
      case 'host_state':
      case 'move_progress':
      case 'chat.message':
      case 'chat.updated':
      case 'chat.read':
        return false;
    }
  }

  private patch(name: string, change: Partial<Agent>): void {
    const current = this.agents.get(name);
    if (current) this.agents.set(name, { ...current, ...change });
  }
}
