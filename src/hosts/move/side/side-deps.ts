import path from 'node:path';
import type { AgentRecord } from '../../../agents/agent-record.js';
import type { Supervisor } from '../../../agents/lifecycle/supervisor.js';
import { agentEnv, type ResolvedAgent } from '../../../agents/resolve.js';
import type { ThreadCarrier } from '../../../chat/threads/transfer/thread-carrier.js';
import type { Config } from '../../../config/schema.js';
import type { Clock } from '../../../core/clock.js';
import type { Exec } from '../../../core/exec.js';
import type { LeoPaths } from '../../../core/home.js';
import type { ConversationPlace } from '../../../harnesses/conversation.js';
import type { MoveHolds } from './move-holds.js';
import type { WorkspacePacker } from '../workspace/index.js';

/** What a daemon's side of a move is built over. */
export interface MoveSideDeps {
  /** <state>/moves: one folder per move id, on either side. */
  movesDir: string;
  supervisor: Pick<
    Supervisor,
    | 'park'
    | 'start'
    | 'spawn'
    | 'remove'
    | 'markMoved'
    | 'restoreDormant'
    | 'has'
    | 'isRunning'
    | 'resolved'
    | 'movedError'
  >;
  /** The agent records as stored (the session id, the agent's own overrides). */
  records: { get(name: string): AgentRecord | null };
  holds: MoveHolds;
  threads: ThreadCarrier;
  /** The chat's deliveries: a park waits for the message being typed into the agent, if any. */
  deliveries: { typingDone(agent: string): Promise<void> };
  packer: WorkspacePacker;
  /** Runs a CLI whose own export or import carries its conversation (opencode). */
  exec: Exec;
  config(): Config;
  paths: LeoPaths;
  /** The user's home: a workspace under it travels as `~/…` (workspace-place.ts). */
  userHome: string;
  /** The environment every agent's session starts under (the daemon's own), beneath its own variables. */
  baseEnv: NodeJS.ProcessEnv;
  clock: Clock;
}

/** Move `id`'s folder on this daemon. */
export const moveDir = (deps: Pick<MoveSideDeps, 'movesDir'>, id: string) => path.join(deps.movesDir, id);

/** Where an agent's CLI keeps its conversation, for its adapter's carrier; `dir` is the pack's folder for it. */
export function conversationPlace(
  deps: Pick<MoveSideDeps, 'config' | 'baseEnv' | 'exec'>,
  record: AgentRecord,
  resolved: ResolvedAgent,
  dir: string,
): ConversationPlace {
  const home = { env: agentEnv(record, resolved, deps.config()), baseEnv: deps.baseEnv };
  return { home, workspace: resolved.workspace, dir, exec: deps.exec };
}
