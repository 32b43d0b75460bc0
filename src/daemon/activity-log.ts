import type { z } from 'zod';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { BusEvent } from '../events/event.js';
import type { EVENT_PAYLOADS } from '../wire/events.js';

type Payload<T extends keyof typeof EVENT_PAYLOADS> = z.infer<(typeof EVENT_PAYLOADS)[T]>;
const data = <T extends keyof typeof EVENT_PAYLOADS>(event: BusEvent, _type: T) => event.data as Payload<T>;

/**
 * One info line for what an owner looks for in the log after a day's use: an agent started or stopped, a permission
 * prompt or question that expired, a task run that failed. Names, ids and reasons only: no message text, command
 * line or environment.
 */
export function activityLine(event: BusEvent): { fields: Record<string, unknown>; msg: string } | null {
  switch (event.type) {
    case 'agent_spawned': {
      const { agent } = data(event, 'agent_spawned');
      return { fields: { agent: agent.name, harness: agent.harness, template: agent.template }, msg: 'agent started' };
    }
    case 'agent_stopped': {
      const d = data(event, 'agent_stopped');
      return { fields: { agent: d.agent, wake_on_message: d.wake_on_message }, msg: 'agent stopped' };
    }
    case 'chat.updated': {
      const { message: m, change } = data(event, 'chat.updated');
      if (change !== 'state' || m.state !== 'expired') return null;
      return {
        fields: { agent: m.agent, id: m.id, kind: m.kind, reason: m.closed_reason ?? 'timeout' },
        msg: 'prompt expired',
      };
    }
    case 'task_run_failed': {
      const { run } = data(event, 'task_run_failed');
      // The reason is the error's first line; the lines after it are the run's own output, which may hold anything.
      const reason = run.error?.split('\n', 1)[0] ?? 'failed';
      return {
        fields: { task: run.task, run_id: run.id, harness: run.harness, reason },
        msg: 'task run failed',
      };
    }
    default:
      return null;
  }
}

/** Logs activityLine's lines for as long as the daemon runs; returns the unsubscribe. */
export function logActivity(bus: EventBus, logger: Logger): () => void {
  return bus.subscribe({
    deliver(event) {
      // A subscriber must not throw into the bus: an event not shaped as its type says is simply not logged.
      let line: ReturnType<typeof activityLine> = null;
      try {
        line = activityLine(event);
      } catch {
        return;
      }
      if (line) logger.info(line.fields, line.msg);
    },
  }).unsubscribe;
}
