// What a harness adapter is given and what it hands back. Adapters are pure: the daemon writes the files, builds the
// tmux session from argv and env, and nothing here touches the disk, the clock or process.env.
import type { Harness } from '../config/schema.js';

export type { Harness };

export interface LeoLaunchInfo {
  /** $LEO_HOME. */
  home: string;
  /** $LEO_HOME/state/agents/<name>: where generated files go. */
  agentDir: string;
  /** Leo's MCP endpoint for this agent (Streamable HTTP). */
  mcpUrl: string;
  /** The shared agent token. A secret: only ever in env or a 0600 file, never in argv. */
  agentToken: string;
  /** Absolute path of bin/leo.js. */
  leoBin: string;
  /** process.execPath: hooks run `<nodeBin> <leoBin> hook …` so the agent's PATH does not matter. */
  nodeBin: string;
  /** Leo's unix socket, for hooks that talk to the daemon. */
  socketPath: string;
}

export interface LaunchContext {
  /** Agent name (NAME_PATTERN). */
  agent: string;
  /** Absolute path, the agent's cwd. */
  workspace: string;
  /** Resolved model; undefined lets the harness use its own default. */
  model?: string;
  /** Shell harness only: the command as written in the template. */
  command?: string;
  permissions?: { bypass_permissions?: boolean; allow?: string[] };
  /** Merged named-environment values. Secrets: passed through, never logged, never put in argv. */
  env: Record<string, string>;
  leo: LeoLaunchInfo;
  /** Restart after a crash or set-environment: continue the previous conversation if the harness can. */
  resume?: boolean;
  /**
   * With resume: the harness's own id of the conversation to continue (Claude's session_id from the SessionStart
   * hook). Without it the harness picks the most recent conversation in the workspace, which can be the wrong one
   * when a task run or another agent shares that workspace.
   */
  resumeSessionId?: string;
  /**
   * How long Leo may hold a PermissionRequest hook, in ms: the longer of chat.permission_timeout and
   * chat.question_timeout. Default 1 h (question_timeout's maximum). The hook's own timeout is set a little longer so
   * the daemon's deadline, not Claude's, ends the wait.
   */
  permissionWaitMs?: number;
  /** Set for a headless task run: the task's name. The instructions tell such a run how its output reaches chat. */
  task?: string;
}

export interface PlannedFile {
  /** Absolute path, under leo.agentDir. */
  path: string;
  content: string;
  mode: number;
}

export interface LaunchPlan {
  /** What tmux runs in the workspace; argv[0] is the program. Visible in `ps`: never holds a secret. */
  argv: string[];
  /** Full env additions for the session: ctx.env, the harness's own settings and the LEO_* variables. */
  env: Record<string, string>;
  /** Files to write (with their modes) before launch. */
  files: PlannedFile[];
}

/** Leo's ceiling on one MCP tool call (leo_chat_ask waits up to 30 min of it). */
export const LEO_MCP_TOOL_CEILING_MS = 32 * 60 * 1000;

/**
 * What harnesses are told to wait for one MCP tool call: a minute over Leo's ceiling, so Leo's own answer (an ask's
 * `pending: true`) always arrives before the client gives up on the call.
 */
export const HARNESS_MCP_TOOL_TIMEOUT_MS = LEO_MCP_TOOL_CEILING_MS + 60 * 1000;

/** The name Leo's MCP server is registered under in every harness; Claude shows its tools as mcp__leo__<tool>. */
export const LEO_MCP_SERVER_NAME = 'leo';

/** The env variable that carries the agent token; MCP configs refer to it by name instead of holding the token. */
export const AGENT_TOKEN_ENV = 'LEO_AGENT_TOKEN';
