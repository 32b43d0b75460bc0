import type { Command } from 'commander';
import type { RemovedAgent } from '../wire/agent-bodies.js';
import type { Agent } from '../wire/fleet.js';
import { act } from './command-action.js';
import { registerMoveCommands } from './move-commands.js';
import { callDaemon } from './socket-client.js';

/** `leo agent …`: the operator API's agent operations, through the daemon's socket. */
export function registerAgentCommands(program: Command): void {
  const agent = program.command('agent').description('spawn, list and control agents (needs the daemon running)');
  const path = (name: string, action = '') => `/api/v1/agents/${encodeURIComponent(name)}${action ? `/${action}` : ''}`;

  agent
    .command('list')
    .option('--json', 'print the Agent objects as JSON')
    .description('every agent Leo knows, with status and activity')
    .action(
      act(async (o: { json?: boolean }) => {
        const agents = await callDaemon<Agent[]>('GET', '/api/v1/agents');
        if (o.json) return agents;
        if (!agents.length) return 'no agents';
        return agents
          .map(
            (a) =>
              `${a.name.padEnd(20)} ${a.status.padEnd(9)} ${a.activity.padEnd(8)} ${a.harness}/${a.model || '-'}` +
              (a.stop_reason ? `\n${' '.repeat(21)}stopped by Leo: ${a.stop_reason}` : ''),
          )
          .join('\n');
      }),
    );

  agent
    .command('spawn <template>')
    .description('create an agent from a template and start it')
    .option('--name <name>', 'agent name (default: from the repo or the template)')
    .option('--repo <repo>', 'git repository to clone into the workspace')
    .option('--branch <branch>', 'branch to work on')
    .option('--base <base>', 'where a new branch starts')
    .option('--worktree', 'its own git worktree of the workspace on the branch leo/<name> (default: the template)')
    .option('--no-worktree', 'no worktree, whatever the template says')
    .option('--prompt <text>', 'first message for the agent')
    .option('--environments <names>', 'comma-separated named environments (overrides the template)')
    .option('--env <KEY=VALUE...>', 'extra environment variables')
    .action(
      act(async (template: string, o: Record<string, string | string[] | boolean | undefined>) => {
        const env = Object.fromEntries(
          ((o.env as string[] | undefined) ?? []).map((kv) => {
            const i = kv.indexOf('=');
            if (i <= 0) throw new Error(`--env ${kv}: expected KEY=VALUE`);
            return [kv.slice(0, i), kv.slice(i + 1)];
          }),
        );
        const body = {
          template,
          ...(o.name ? { name: o.name } : {}),
          ...(o.repo ? { repo: o.repo } : {}),
          ...(o.branch ? { branch: o.branch } : {}),
          ...(o.base ? { base: o.base } : {}),
          ...(typeof o.worktree === 'boolean' ? { worktree: o.worktree } : {}),
          ...(o.prompt ? { prompt: o.prompt } : {}),
          ...(o.environments ? { environments: String(o.environments).split(',').filter(Boolean) } : {}),
          ...(Object.keys(env).length ? { env } : {}),
        };
        const a = await callDaemon<Agent>('POST', '/api/v1/agents/spawn', body);
        return `spawned ${a.name} (${a.harness}, ${a.workspace}${a.branch ? ` on ${a.branch}` : ''})`;
      }),
    );

  for (const action of ['stop', 'start', 'restart', 'reset'] as const)
    agent
      .command(`${action} <name>`)
      .description(`${action} an agent`)
      .action(
        act(async (name: string) => {
          const a = await callDaemon<Agent>('POST', path(name, action));
          return `${a.name}: ${a.status}`;
        }),
      );

  agent
    .command('remove <name>')
    .description(
      'stop an agent and delete its record (its workspace stays; its worktree goes when nothing would be lost)',
    )
    .option('--force', 'delete its worktree even with uncommitted or unpushed work in it')
    .action(
      act(async (name: string, o: { force?: boolean }) =>
        removedLine(await callDaemon<RemovedAgent>('DELETE', `${path(name)}${o.force ? '?force=true' : ''}`)),
      ),
    );

  agent
    .command('rename <name> <new-name>')
    .description('rename an agent, live or stopped')
    .action(
      act(
        async (name: string, to: string) => (await callDaemon<Agent>('POST', path(name, 'rename'), { name: to })).name,
      ),
    );

  agent
    .command('set-template <name> <template>')
    .description('switch an agent to another template (it restarts)')
    .action(act(async (name: string, template: string) => callDaemon('POST', path(name, 'template'), { template })));

  agent
    .command('set-environment <name> [environments...]')
    .description('switch the named environments (none: back to the template default); it restarts and resumes')
    .action(
      act(async (name: string, environments: string[]) =>
        callDaemon('POST', path(name, 'environments'), { environments }),
      ),
    );

  agent
    .command('appearance <name>')
    .description('set or clear the manual emoji and colour')
    .option('--emoji <emoji>')
    .option('--color <color>')
    .option('--clear-emoji')
    .option('--clear-color')
    .action(
      act(async (name: string, o: { emoji?: string; color?: string; clearEmoji?: boolean; clearColor?: boolean }) =>
        callDaemon('PUT', path(name, 'appearance'), {
          ...(o.clearEmoji ? { emoji: null } : o.emoji ? { emoji: o.emoji } : {}),
          ...(o.clearColor ? { color: null } : o.color ? { color: o.color } : {}),
        }),
      ),
    );

  registerMoveCommands(agent);
}

/** What `leo agent remove` prints: the agent went; a worktree agent's tree and branch went, or why they stay. */
export function removedLine(r: RemovedAgent): string {
  const w = r.worktree;
  if (!w) return `removed ${r.name}`;
  if (!w.removed) return `removed ${r.name}; kept its worktree ${w.path} (branch ${w.branch}): ${w.kept ?? ''}`;
  const gone = w.branch_removed ? `its worktree ${w.path} and branch ${w.branch}` : `its worktree ${w.path}`;
  return `removed ${r.name} and ${gone}${w.kept ? `; ${w.kept}` : ''}`;
}
