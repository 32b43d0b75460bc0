import type { Config } from '../config/schema.js';
import { rfc3339 } from '../core/time.js';
import type { ActivitySnapshot } from '../observe/activity-tracker.js';
import type { Agent, Appearance } from '../wire/fleet.js';
import type { AgentRecord } from './agent-record.js';
import type { Runtime } from './lifecycle/runtime.js';
import { displayName, resolveAgent, resolveAppearance } from './resolve.js';

/**
 * An agent as the API shows it: its record resolved through the config cascade, with its runtime and the activity
 * the sweep last saw. Pure.
 */
export function agentView(
  record: AgentRecord,
  rt: Pick<Runtime, 'status' | 'restarts' | 'startedAt'>,
  seen: ActivitySnapshot,
  config: Config,
  home: string,
): Agent {
  const r = resolveAgent(record, config, home);
  const status = rt.status;
  const wake = status === 'stopped' && record.state === 'parked';
  // last_activity_at outlives a stop ("last seen"); activity and the action are live state, for running agents only.
  const a = status === 'running' ? seen : null;
  const appearance: Appearance | undefined = resolveAppearance(
    record,
    { template: r.template, harness: r.harness },
    config.appearance_rules,
  );
  return {
    name: record.name,
    display_name: displayName(record.name),
    template: record.template ?? '',
    repo: record.repo ?? '',
    workspace: r.workspace,
    branch: record.branch ?? '',
    status,
    activity: a?.activity ?? 'unknown',
    model: r.model,
    harness: r.harness,
    restarts: rt.restarts,
    wake_on_message: wake,
    started_at: rt.startedAt === null ? null : rfc3339(rt.startedAt),
    last_activity_at: seen.last_activity_at === null ? null : rfc3339(seen.last_activity_at),
    current_action: a?.activity === 'working' ? a.current_action : null,
    environments: r.environments,
    environments_source: r.environmentsSource,
    environment_error: r.environmentError,
    stop_reason: status === 'stopped' ? record.stop_reason : null,
    ...(appearance ? { appearance } : {}),
    ...(record.moved_to ? { moved_to: record.moved_to } : {}),
    ...(record.moved_at ? { moved_at: record.moved_at } : {}),
    ...(record.moved_as ? { moved_as: record.moved_as } : {}),
  };
}

/** A live rename reports from in-memory process state, which carries none of these (spec: rename). */
export function liveRenameView(view: Agent): Agent {
  const degraded: Agent = { ...view, template: '', repo: '', branch: '', model: '', workspace: '', harness: '' };
  delete degraded.appearance;
  return degraded;
}
