// What Leo knows about one agent CLI, as one object: each CLI's folder builds one (`<cli>/index.ts`) and index.ts
// lists them in HARNESSES. Code outside src/harnesses asks the table (`HARNESSES[h].screen`) or a helper here that
// does (planLaunch, screenReader, withoutChrome, …) instead of branching on a harness's name. A capability a CLI
// lacks is left out, and each caller says what it does without one.
import type { ChatEngine } from '../core/chat-engine.js';
import type { ConversationCarrier } from './conversation.js';
import type { DecisionFormat } from '../wire/permission.js';
import type { TerminalKey } from '../wire/terminal.js';
import type { HarnessTurn } from '../wire/usage.js';
import type { Chrome } from './chrome-parts.js';
import type { ScreenReader } from './screen.js';
import type { HeadlessPart, Prompted } from './task-run.js';
import type { TranscriptFormat } from './transcript-readers.js';
import type { LaunchContext, LaunchPlan } from './types.js';

export interface HarnessAdapter {
  /** The interactive session's launch as data: argv, env and the files to write first. Pure. */
  plan(ctx: LaunchContext): LaunchPlan;
  /** What a oneshot task run changes from the interactive plan (`claude -p`, `codex exec`, `opencode run`). Pure. */
  headless(ctx: Prompted, interactive: LaunchPlan): HeadlessPart;
  /** The cause a failed headless run printed, from the end of its output; absent: the exit status says it all. */
  headlessFailure?(tail: string): string | null;
  /**
   * The template's `command` is the whole session, a shell line (`shell`): a template must set it, a task run needs no
   * prompt and finds it in LEO_TASK_PROMPT, and no program can be named before the line runs.
   */
  runsCommandLine?: true;
  /** The CLI the harness runs (a template's `command` may name another build of it) and how to install it. */
  program?: { bin: string; install: string };
  /** Where the CLI keeps its login, for `leo doctor`. */
  login?: HarnessLogin;
  /**
   * Node-side, just before a launch: readies the CLI's own state for a session in `workspace` (Claude's workspace
   * trust). Reads the environment the session will start with.
   */
  beforeLaunch?(home: AgentHome, workspace: string): void;
  /**
   * Whether the CLI still has conversation `sessionId` to resume; a resume of one it never wrote exits at once.
   * Absent: any recorded session id is handed to the CLI.
   */
  canResume?(home: AgentHome, sessionId: string): boolean;
  /** Carries its conversation to another machine (moving an agent); absent: a moved agent starts a new one there. */
  conversation?: ConversationCarrier;
  /** The thread's note when this start will be slow for a reason of the CLI's own (opencode's first plugin install). */
  startNote?(env: NodeJS.ProcessEnv, workspace: string): string | null;
  /** Reads the CLI's terminal from a pane capture; absent: delivery watches the pane change instead. */
  screen?: ScreenReader;
  /** The key that interrupts it at its terminal (the app's Interrupt button): a TUI's Escape, a shell's C-c. */
  interruptKey: TerminalKey;
  /** The CLI's TUI furniture, skipped in current_action.detail; absent: every line is the agent's. */
  chrome?: Chrome;
  /** Whose reader the transcript its Stop hook names needs (reply capture, turn usage). */
  transcriptFormat: TranscriptFormat;
  /** Where its turns' token usage is; absent: none is counted. */
  usage?: TurnUsageReader;
  /** How its permission hook reads chat's answer. */
  decisions: DecisionFormat;
  /** A persistent task run's turn end is told by its Stop hook, so the run ends with the turn. */
  reportsTurnEnd: boolean;
  /**
   * Leo posts a turn's final answer into the thread by itself (a Stop hook ends the turn and Leo reads its reply).
   * Where it does not, the model must answer with leo_chat_post or the owner hears nothing (Leo's instructions say so).
   */
  repliesCaptured: boolean;
  /** The chat endpoint's engine for an agent whose template names none. */
  defaultChatEngine: ChatEngine['name'];
  /** A chat endpoint engine that runs this CLI (Claude's `claude -p` per turn); any template's `chat.engine` may name it. */
  chatEngine?(): ChatEngine;
}

/** Where a harness keeps its login, and the environment variables that stand in for one. */
export interface LoginContext {
  /** The agent's environment: the daemon's, with the template's named environments and env on top. */
  env: Record<string, string | undefined>;
  /** The user's home (LEO_USER_HOME in tests). */
  home: string;
}

export interface HarnessLogin {
  /** How the CLI would log in here, or null when nothing says it can. */
  find(c: LoginContext): string | null;
  /** What to do when it cannot. */
  how: string;
}

/** The environment an agent's session starts with: its own (named environments, env) over the daemon's. */
export interface AgentHome {
  env: Record<string, string>;
  baseEnv: NodeJS.ProcessEnv;
}

/** Where a harness reports a turn's usage: in its Stop payload, or in the transcript that payload names. */
export interface TurnUsageReader {
  /** The turn's usage carried by the Stop payload itself (opencode's plugin puts it there). */
  fromStop?(payload: Record<string, unknown>): HarnessTurn | null;
  /**
   * Without fromStop, the usage is read on the pool from the transcript at the Stop's transcript_path, by its
   * transcript format's reader; this field of the Stop payload names the ended turn there.
   */
  turnField?: string;
}
