import fs from 'node:fs';
import path from 'node:path';
import type { Config, Harness } from '../config/schema.js';
import type { LeoPaths } from '../core/home.js';
import type { AgentRecord } from './agent-record.js';
import { AgentError } from './agent-error.js';
import { checkHarnessProgram, planLaunch, startNote, type LaunchContext } from '../harnesses/launch.js';
import { HARNESSES } from '../harnesses/index.js';
import { writePlannedFiles } from '../harnesses/plan-files.js';
import { agentEnv, resolveAgent } from './resolve.js';
import { sessionName } from '../tmux/session-name.js';
import type { Workspaces } from './workspaces.js';

/** What the launcher needs from tmux. */
export interface SessionStarter {
  newSession(o: { name: string; cwd: string; command: readonly string[]; env?: Record<string, string> }): Promise<void>;
}

export interface LauncherDeps {
  tmux: SessionStarter;
  workspaces: Workspaces;
  paths: LeoPaths;
  /** The environment the tmux server gives every pane (the daemon's), under each agent's own. */
  baseEnv: NodeJS.ProcessEnv;
  config(): Config;
  leo: Omit<LaunchContext['leo'], 'agentDir' | 'mcpUrl'> & { baseUrl(): string };
  /** Told of every session started, with its harness (to watch its start-up screen). Must not throw. */
  launched(agent: string, harness: Harness): void;
  /** A system note in the agent's thread. */
  note(agent: string, text: string): void;
}

/** What the supervisor needs to start agents; the Launcher is the real one, tests hand in their own. */
export interface AgentLauncher {
  check(record: AgentRecord): void;
  prepareWorkspace(workspace: string, record: AgentRecord, base?: string): Promise<void>;
  launch(record: AgentRecord, opts: { resume: boolean }): Promise<void>;
}

/**
 * Starts an agent's tmux session from its record: resolves the cascade, refuses what cannot start (unknown template,
 * undefined environment), prepares the workspace, writes the harness's generated files, and runs its command line.
 */
export class Launcher implements AgentLauncher {
  constructor(private readonly deps: LauncherDeps) {}

  /** The checks `start`, `restart` and the stale-agent report share; throws AgentError('invalid') when refused. */
  check(record: AgentRecord): void {
    const r = resolveAgent(record, this.deps.config(), this.deps.paths.home);
    const why = r.templateError ?? r.environmentError;
    if (why) throw new AgentError('invalid', `cannot start ${record.name}: ${why}`);
    if (HARNESSES[r.harness].runsCommandLine && !r.command)
      throw new AgentError('invalid', `cannot start ${record.name}: template "${r.template}" has no command`);
    const env = agentEnv(record, r, this.deps.config());
    const program = checkHarnessProgram(r.harness, r.command, env.PATH ?? this.deps.baseEnv.PATH ?? '');
    if (program && !program.ok) throw new AgentError('invalid', `cannot start ${record.name}: ${program.error}`);
  }

  prepareWorkspace(workspace: string, record: AgentRecord, base?: string): Promise<void> {
    return this.deps.workspaces.prepare(workspace, record, base);
  }

  async launch(record: AgentRecord, opts: { resume: boolean }): Promise<void> {
    this.check(record);
    const config = this.deps.config();
    const r = resolveAgent(record, config, this.deps.paths.home);
    await this.deps.workspaces.prepare(r.workspace, record);
    const agentDir = path.join(this.deps.paths.stateDir, 'agents', record.name);
    fs.mkdirSync(agentDir, { recursive: true, mode: 0o700 });
    const env = agentEnv(record, r, config);
    const adapter = HARNESSES[r.harness];
    const home = { env, baseEnv: this.deps.baseEnv };
    adapter.beforeLaunch?.(home, r.workspace);
    const resumeSessionId =
      opts.resume && record.session_id && (adapter.canResume?.(home, record.session_id) ?? true)
        ? record.session_id
        : undefined;
    const { baseUrl, ...leo } = this.deps.leo;
    const plan = planLaunch(r.harness, {
      agent: record.name,
      workspace: r.workspace,
      ...(r.model ? { model: r.model } : {}),
      ...(r.command ? { command: r.command } : {}),
      permissions: r.permissions,
      env,
      leo: { ...leo, agentDir, mcpUrl: `${baseUrl()}/api/agent/${encodeURIComponent(record.name)}/mcp` },
      resume: opts.resume,
      ...(resumeSessionId !== undefined ? { resumeSessionId } : {}),
      permissionWaitMs: Math.max(config.chat.permission_timeout, config.chat.question_timeout),
    });
    await writePlannedFiles(plan.files);
    const note = startNote(r.harness, { ...this.deps.baseEnv, ...plan.env }, r.workspace);
    if (note) this.deps.note(record.name, note);
    await this.deps.tmux.newSession({
      name: sessionName(record.name),
      cwd: r.workspace,
      command: plan.argv,
      env: plan.env,
    });
    this.deps.launched(record.name, r.harness);
  }
}
