import { z } from 'zod';
import { Message } from '../wire/message.js';
import { CheckResult } from '../wire/check-result.js';
import { DaemonInfo } from '../http/system-routes.js';
import { StateSnapshot, type Agent } from '../wire/fleet.js';

/** Everything `leo status` shows; `leo status --json` prints it as is. */
export const StatusSnapshot = z.object({
  daemon: DaemonInfo,
  state: StateSnapshot,
  /** Open asks, permission prompts and questions cards, newest first. */
  open: z.array(Message),
  /** The doctor's lines that are not ok. */
  warnings: z.array(CheckResult),
});
export type StatusSnapshot = z.infer<typeof StatusSnapshot>;

export const doctorWarnings = (results: CheckResult[]): StatusSnapshot['warnings'] =>
  results.filter((r) => r.status !== 'ok');

/** Lists longer than this end in "… and N more": the report is meant to fit one screen. */
const SHOWN = 12;

export function duration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ${String(m % 60).padStart(2, '0')}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

const ago = (now: number, at: string | null | undefined) =>
  at ? `${duration((now - Date.parse(at)) / 1000)} ago` : '';

/** Column-aligned rows, each cell padded to its column's widest. */
function table(rows: string[][]): string[] {
  const widths = rows.reduce<number[]>((w, r) => r.map((c, i) => Math.max(w[i] ?? 0, c.length)), []);
  return rows.map((r) => `  ${r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join('  ')}`.trimEnd());
}

function capped<T>(items: T[], row: (item: T) => string[]): string[] {
  const lines = table(items.slice(0, SHOWN).map(row));
  if (items.length > SHOWN) lines.push(`  … and ${items.length - SHOWN} more`);
  return lines;
}

/** "2 running (1 working, 1 idle), 1 stopped": the fleet by status, and the running ones by activity. */
function fleetSummary(agents: Agent[]): string {
  const count = (xs: string[]) =>
    [...xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<string, number>())].map(([k, n]) => `${n} ${k}`);
  const running = agents.filter((a) => a.status === 'running');
  return count(agents.map((a) => a.status))
    .map((part) =>
      part.endsWith(' running') && running.length
        ? `${part} (${count(running.map((a) => a.activity)).join(', ')})`
        : part,
    )
    .join(', ');
}

const oneLine = (s: string, max = 60) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** The one-screen report. */
export function formatStatus(s: StatusSnapshot): string {
  const now = Date.parse(s.state.server_time);
  const d = s.daemon;
  const out = [
    `leo ${d.leo_version}: ${d.ready ? 'running' : 'starting (restoring agents)'} · pid ${d.pid} · up ${duration(d.uptime_s)} (since ${d.started_at}) · node ${d.node}`,
    `listening: ${d.listeners.tcp} · socket ${d.listeners.socket} · app ${d.listeners.app}`,
    '',
  ];
  const agents = s.state.agents;
  out.push(
    agents.length
      ? `agents (${agents.length}): ${fleetSummary(agents)}`
      : 'agents: none yet (leo agent spawn <template>)',
  );
  out.push(
    ...capped(agents, (a) => [
      a.name,
      a.status,
      a.status === 'running' ? a.activity : (a.stop_reason ?? ''),
      a.model ? `${a.harness}/${a.model}` : a.harness,
      a.last_activity_at ? `active ${ago(now, a.last_activity_at)}` : '',
      a.current_action ? oneLine(a.current_action.detail, 40) : '',
    ]),
  );
  out.push('');
  const asks = s.open.filter((m) => m.kind === 'ask').length;
  const prompts = s.open.length - asks;
  out.push(
    s.open.length
      ? `waiting on you (${s.open.length}): ${asks} ask(s), ${prompts} permission prompt(s)`
      : 'waiting on you: nothing',
  );
  out.push(
    ...capped(s.open, (m) => [
      m.agent,
      m.kind,
      oneLine(m.permission ? `${m.permission.tool}: ${m.permission.summary}` : m.text),
      ago(now, m.ts),
    ]),
  );
  out.push('');
  const runs = s.state.recent_runs;
  out.push(
    runs.length
      ? `last task runs (${s.state.tasks.length} task(s)):`
      : `task runs: none yet (${s.state.tasks.length} task(s))`,
  );
  out.push(
    ...capped(runs, (r) => [
      r.task,
      r.status,
      ago(now, r.started_at),
      r.duration_ms === undefined ? '' : duration(r.duration_ms / 1000),
      r.error ? oneLine(r.error, 50) : '',
    ]),
  );
  out.push('');
  out.push(s.warnings.length ? `doctor (${s.warnings.length}):` : 'doctor: everything is in place');
  out.push(
    ...s.warnings.map(
      (w) => `  ${w.status.padEnd(8)}${w.name}: ${oneLine(w.detail, 80)}${w.required ? '' : ' (optional)'}`,
    ),
  );
  return out.join('\n');
}
