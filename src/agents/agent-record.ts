import { z } from 'zod';
import { HarnessSchema } from '../config/schema.js';
import { AgentName } from '../wire/names.js';

export const AgentState = z.enum(['active', 'stopped', 'parked']);
export type AgentState = z.infer<typeof AgentState>;

/** What the agent store keeps per agent; the daemon rebuilds everything else from config and tmux. */
export const AgentRecord = z.object({
  name: AgentName,
  template: z.string().nullable(),
  repo: z.string().nullable(),
  branch: z.string().nullable(),
  workspace: z.string().nullable(),
  model: z.string().nullable(),
  harness: HarnessSchema.nullable(),
  /** The agent's own environment list; null means "use the template's or the defaults". */
  environments: z.array(z.string()).nullable(),
  /** Extra variables from the spawn request. Secret: never served, never logged. */
  env: z.record(z.string(), z.string()).nullable(),
  /** The harness's conversation id to resume after a restart (Claude reports it through its SessionStart hook). */
  session_id: z.string().nullable(),
  emoji: z.string().nullable(),
  color: z.string().nullable(),
  /** Set on the dormant record a moved agent leaves (issue 32): the `client.hosts` key it went to, and when. */
  moved_to: z.string().nullable(),
  moved_at: z.string().nullable(),
  /** The name it took there, when the move gave it another; null when it kept its own. */
  moved_as: z.string().nullable(),
  state: AgentState,
  /** Why the daemon stopped the agent by itself; null unless it did. */
  stop_reason: z.string().nullable(),
  created_at: z.string(),
});
export type AgentRecord = z.infer<typeof AgentRecord>;
