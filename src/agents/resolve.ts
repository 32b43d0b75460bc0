import path from 'node:path';
import type { Config, Harness } from '../config/schema.js';
import type { Appearance } from '../wire/fleet.js';
import type { AgentRecord } from './agent-record.js';
import { globMatches } from '../core/name-glob.js';

/** An agent's effective settings after the defaults → template → agent cascade. Pure: config and record in, facts out. */
export interface ResolvedAgent {
  name: string;
  template: string;
  /** Set when the record names a template the config no longer defines; starting is refused. */
  templateError: string | null;
  harness: Harness;
  model: string;
  command: string | null;
  workspace: string;
  environments: string[];
  environmentsSource: 'override' | 'default';
  environmentError: string | null;
  permissions: { bypass_permissions?: boolean; allow?: string[] };
  idleSuspendAfterMs: number | null;
  chatEnabled: boolean;
}

export function resolveAgent(record: AgentRecord, config: Config, leoHome: string): ResolvedAgent {
  const template = record.template ? config.templates[record.template] : undefined;
  const templateError =
    record.template && !template ? `template "${record.template}" is not defined in leo.yaml` : null;
  const environments = record.environments ?? template?.environments ?? config.defaults.environments;
  const missing = environments.filter((e) => !(e in config.environments));
  const workspaceRoot = config.defaults.workspace_root ?? path.join(leoHome, 'agents');
  return {
    name: record.name,
    template: record.template ?? '',
    templateError,
    harness: record.harness ?? template?.harness ?? config.defaults.harness,
    model: record.model ?? template?.model ?? config.defaults.model ?? '',
    command: template?.command ?? null,
    workspace: record.workspace ?? template?.workspace ?? path.join(workspaceRoot, record.name),
    environments,
    environmentsSource: record.environments ? 'override' : 'default',
    environmentError: missing.length
      ? `environment${missing.length > 1 ? 's' : ''} ${missing.map((m) => `"${m}"`).join(', ')} not defined in leo.yaml`
      : null,
    permissions: template?.permissions ?? {},
    idleSuspendAfterMs: template?.idle_suspend_after ?? config.defaults.idle_suspend_after ?? null,
    chatEnabled: template?.chat?.enabled ?? false,
  };
}

/**
 * The variables an agent's session starts with: its named environments in order (a later one wins), then the
 * template's own env, then the spawn request's. These values are secrets and never leave the daemon.
 */
export function agentEnv(record: AgentRecord, resolved: ResolvedAgent, config: Config): Record<string, string> {
  const template = record.template ? config.templates[record.template] : undefined;
  const env: Record<string, string> = {};
  for (const name of resolved.environments) Object.assign(env, config.environments[name] ?? {});
  Object.assign(env, template?.env ?? {}, record.env ?? {});
  return env;
}

/**
 * Emoji and colour, each from the agent's manual value if set, else from the first appearance rule (in order) that
 * matches the agent and sets it. Undefined when neither is set.
 */
export function resolveAppearance(
  record: Pick<AgentRecord, 'name' | 'emoji' | 'color'>,
  facts: { template: string; harness: string },
  rules: Config['appearance_rules'],
): Appearance | undefined {
  const out: Appearance = {};
  const pick = (field: 'emoji' | 'color') => {
    const manual = record[field];
    if (manual) {
      out[field] = manual;
      out[`${field}_source`] = 'manual';
      return;
    }
    const i = rules.findIndex((r) => r[field] !== undefined && ruleMatches(r.match, record.name, facts));
    if (i >= 0) {
      out[field] = rules[i]![field];
      out[`${field}_source`] = `rule:${i}`;
    }
  };
  pick('emoji');
  pick('color');
  return out.emoji === undefined && out.color === undefined ? undefined : out;
}

function ruleMatches(
  match: Config['appearance_rules'][number]['match'],
  name: string,
  facts: { template: string; harness: string },
): boolean {
  if (match.name !== undefined && !globMatches(match.name, name)) return false;
  if (match.template !== undefined && match.template !== facts.template) return false;
  if (match.harness !== undefined && match.harness !== facts.harness) return false;
  return true;
}

/** The name UIs show: the stored name without Leo's internal `leo-` prefix (leo-home → home). */
export function displayName(name: string): string {
  return name.startsWith('leo-') && name.length > 4 ? name.slice(4) : name;
}
