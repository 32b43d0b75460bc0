// planHeadless: one task run's command line, as data, for `runtime: oneshot` tasks. The run is a fresh headless process
// (no tmux, no resume) in the task's workspace that prints its work and exits. It starts from the harness's
// interactive plan, so it gets the same env, config files and permissions, and adds the run's identity: LEO_TASK and
// LEO_RUN_ID in the env, and the X-Leo-Task / X-Leo-Run-Id caller headers on Leo's MCP server, filled from those
// variables by the harness itself, so the daemon files the run's posts as task cards.
//
// Every agent CLI gets its prompt after `--`, so a prompt that starts with `-` (or names a subcommand such as codex's
// `review`) is read as the prompt and never as an option. Measured behind scripted servers with claude 2.1.328, codex
// 0.169.0 and opencode 1.18.33: a prompt `--help me` reached each model verbatim, and each CLI sent both caller
// headers, expanded, to Leo's MCP endpoint.
import path from 'node:path';
import { CallerEnv, CallerHeaders } from '../mcp/tool-caller.js';
import { CLAUDE_MCP_CONFIG_FILE, CLAUDE_SETTINGS_FILE, claudeMcpConfig, claudeSettings } from './claude/plan.js';
import { codexConfigOverrides } from './codex/plan.js';
import { assertNoTokenInArgv, jsonFile, optionValue, shellQuote, sortKeys, tomlString } from './common.js';
import { planLaunch, withFile } from './launch.js';
import { instructionsFile } from './instructions.js';
import { OPENCODE_CONFIG_FILE, opencodeConfig } from './opencode/plan.js';
import { LEO_MCP_SERVER_NAME, type Harness, type LaunchContext, type LaunchPlan } from './types.js';

export interface HeadlessContext extends LaunchContext {
  /**
   * The task's prompt; the shell harness gets it in LEO_TASK_PROMPT instead of argv, and needs none (its command is
   * the whole task).
   */
  prompt?: string;
  /** Task name, as LEO_TASK. */
  task: string;
  /** This run's id, as LEO_RUN_ID. */
  runId: string;
}

/** In a run's folder: the Stop hook payloads of a headless run whose CLI reports them (one JSON object a line). */
export const RUN_STOPS_FILE = 'stops.jsonl';

/** Where the shell harness's command finds the task's prompt: a shell command line has no prompt argument. */
export const TASK_PROMPT_ENV = 'LEO_TASK_PROMPT';

const TASK_ENV = CallerEnv[CallerHeaders.task];
const RUN_ID_ENV = CallerEnv[CallerHeaders.runId];

/**
 * The caller headers a task run sends, each naming the variable it is filled from (the pairs `leo mcp-stdio` uses),
 * written as `variable` spells a reference in the harness's config.
 */
function taskHeaders(variable: (name: string) => string): Record<string, string> {
  return { [CallerHeaders.task]: variable(TASK_ENV), [CallerHeaders.runId]: variable(RUN_ID_ENV) };
}

/** What a headless plan changes from the interactive one; the env is shared. */
type HeadlessPart = Pick<LaunchPlan, 'argv' | 'files'>;

type Prompted = HeadlessContext & { prompt: string };

const PLANNERS: Record<Harness, (ctx: Prompted, interactive: LaunchPlan) => HeadlessPart> = {
  claude: claudeHeadless,
  codex: codexHeadless,
  opencode: opencodeHeadless,
  shell: (_ctx, interactive) => interactive,
};

export function planHeadless(harness: Harness, ctx: HeadlessContext): LaunchPlan {
  if (ctx.prompt === undefined) {
    if (harness !== 'shell') throw new Error(`a ${harness} task needs a prompt`);
  } else if (ctx.prompt.trim() === '' || ctx.prompt.includes('\0')) throw new Error('invalid task prompt');
  // Every run is a new conversation: resuming would continue the owner agent's own, or the previous run's.
  const fresh: Prompted = { ...ctx, prompt: ctx.prompt ?? '', resume: false, resumeSessionId: undefined };
  const interactive = planLaunch(harness, fresh);
  const { argv, files } = PLANNERS[harness](fresh, interactive);
  assertNoTokenInArgv(ctx, argv);
  const run = {
    [TASK_ENV]: ctx.task,
    [RUN_ID_ENV]: ctx.runId,
    ...(harness === 'shell' && ctx.prompt !== undefined ? { [TASK_PROMPT_ENV]: ctx.prompt } : {}),
  };
  // Last, so a named environment can never make a run report as another task or run.
  // The instructions file is the run's (ctx.task set: the task's text), whichever files the harness replaced.
  const all = withFile(files, instructionsFile(harness, fresh));
  return { argv, env: sortKeys({ ...interactive.env, ...run }), files: all };
}

/**
 * `claude -p` with the interactive options (settings, MCP config, permission mode, model): with resume off they are
 * all options, so the prompt can follow them. `--` also ends --mcp-config, which takes several values and would
 * otherwise read the prompt as one more config file.
 */
function claudeHeadless(ctx: Prompted, interactive: LaunchPlan): HeadlessPart {
  // Leo's hooks stay out: they report as the owner agent (LEO_AGENT), so a run's SessionStart would replace the
  // agent's resumable session and its Stop would post the run's last message as the agent's reply. Without the
  // PermissionRequest hook, `-p` denies what the allow rules (mcp__leo always among them) do not cover. The run's own
  // Stop payloads (transcript path, prompt id) are kept in its folder instead, one line each, for its usage.
  const stops = shellQuote(path.join(ctx.leo.agentDir, RUN_STOPS_FILE));
  const settings = {
    ...claudeSettings(ctx),
    hooks: { Stop: [{ hooks: [{ type: 'command', command: `{ cat; echo; } >> ${stops}` }] }] },
  };
  const mcp = claudeMcpConfig(ctx);
  const leo = mcp.mcpServers[LEO_MCP_SERVER_NAME]!;
  leo.headers = { ...leo.headers, ...taskHeaders((name) => `\${${name}}`) };
  return {
    argv: ['claude', '-p', '--output-format', 'text', ...interactive.argv.slice(1), '--', ctx.prompt],
    files: [
      jsonFile(path.join(ctx.leo.agentDir, CLAUDE_SETTINGS_FILE), settings),
      jsonFile(path.join(ctx.leo.agentDir, CLAUDE_MCP_CONFIG_FILE), mcp),
    ],
  };
}

/**
 * `codex exec`, with the interactive adapter's `-c` overrides plus env_http_headers (header → name of the variable
 * holding its value). --no-daemon stays out: it is the TUI's guard against a shared app server, not an exec option.
 * Without --skip-git-repo-check exec refuses a workspace that is not a git repository. A prompt of `-` alone would
 * make codex read the prompt from stdin, which a run does not have.
 */
function codexHeadless(ctx: Prompted): HeadlessPart {
  if (ctx.prompt === '-') throw new Error('invalid task prompt "-": codex reads that as "prompt on stdin"');
  const headers = Object.entries(taskHeaders(tomlString))
    .map(([header, name]) => `${tomlString(header)}=${name}`)
    .join(',');
  const overrides = [...codexConfigOverrides(ctx), `mcp_servers.${LEO_MCP_SERVER_NAME}.env_http_headers={${headers}}`];
  const argv = ['codex', 'exec', '--skip-git-repo-check', ...overrides.flatMap((o) => ['-c', o])];
  if (ctx.model !== undefined) argv.push('--model', optionValue('model', ctx.model));
  if (ctx.permissions?.bypass_permissions === true) argv.push('--dangerously-bypass-approvals-and-sandbox');
  return { argv: [...argv, '--', ctx.prompt], files: [] };
}

/**
 * The cause a headless CLI printed for its failure, from the end of its output, or null. `codex exec` 0.171.0 prints
 * its banner first and, when the turn fails, `ERROR: <message>` last (the message is the provider's error body,
 * `{"error":{"message":…}}`, when it sent one); the last such line is the cause.
 */
export function headlessFailure(harness: Harness, tail: string): string | null {
  if (harness !== 'codex') return null;
  const line = tail
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('ERROR: '));
  if (line === undefined) return null;
  const text = line.slice('ERROR: '.length).trim();
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string' && message.trim()) return message.trim();
  } catch {
    // Not the provider's JSON: the line says it in words.
  }
  return text || null;
}

/**
 * `opencode run` with the interactive options (--model, --auto). opencode joins its message words with spaces and
 * wraps any word that holds a space in quotes, so the prompt goes in split at its spaces: joined back it is exactly
 * the prompt, unquoted. Its config file (OPENCODE_CONFIG, already in the env) gains the caller headers.
 */
function opencodeHeadless(ctx: Prompted, interactive: LaunchPlan): HeadlessPart {
  // Leo's plugin stays out for the reason Claude's hooks do (claudeHeadless): it reports as the owner agent.
  const config = opencodeConfig(ctx, { plugin: false });
  const leo = config.mcp[LEO_MCP_SERVER_NAME]!;
  leo.headers = { ...leo.headers, ...taskHeaders((name) => `{env:${name}}`) };
  return {
    argv: ['opencode', 'run', ...interactive.argv.slice(1), '--', ...ctx.prompt.split(' ')],
    files: [jsonFile(path.join(ctx.leo.agentDir, OPENCODE_CONFIG_FILE), config)],
  };
}
