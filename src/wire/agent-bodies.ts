import { z } from 'zod';
import { refProblem, repoProblem } from './git-args.js';
import { HostName } from './host.js';
import { AgentName, NameSchema } from './names.js';

/** The agent routes' request bodies. Pure (zod only): Leo Web builds its requests from them. */

/** A zod refinement from a pure check that answers why a value is refused. */
function checkedBy(problem: (value: string) => string | null) {
  return (value: string, ctx: z.RefinementCtx) => {
    const why = problem(value);
    if (why) ctx.addIssue({ code: 'custom', message: why });
  };
}

const EnvVarName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be an environment variable name');

/** POST /api/v1/agents/spawn: the /api/agent/spawn body plus `environments`. */
export const SpawnBody = z.strictObject({
  template: NameSchema,
  name: AgentName.optional(),
  repo: z.string().min(1).max(2048).superRefine(checkedBy(repoProblem)).optional(),
  branch: z.string().min(1).max(255).superRefine(checkedBy(refProblem)).optional(),
  base: z.string().min(1).max(255).superRefine(checkedBy(refProblem)).optional(),
  prompt: z.string().max(100_000).optional(),
  env: z.record(EnvVarName, z.string().max(32_768)).optional(),
  environments: z.array(NameSchema).max(32).optional(),
  /**
   * Its own git worktree of the workspace's repository, on the branch `leo/<name>` made from the repository's current
   * commit or `base` (issue 33). Overrides the template's `worktree`.
   */
  worktree: z.boolean().optional(),
  /** On a hub: the host (its name under client.hosts) whose daemon spawns the agent, from its own templates. */
  host: HostName.optional(),
});
export type SpawnBody = z.infer<typeof SpawnBody>;

export const EnvironmentsBody = z.strictObject({ environments: z.array(NameSchema).max(32) });
export const RenameBody = z.strictObject({ name: AgentName });
export const TemplateBody = z.strictObject({ template: NameSchema });
export const AppearanceBody = z.strictObject({
  emoji: z.string().min(1).max(16).nullable().optional(),
  color: z.string().min(1).max(32).nullable().optional(),
});

/** DELETE /api/v1/agents/:name?force=true: a worktree agent's tree goes even with work in it (its branch stays then). */
export const RemoveQuery = z.strictObject({ force: z.enum(['true', 'false']).optional() });

/** What became of a worktree agent's tree and its branch `leo/<name>` when the agent was removed. */
export const WorktreeLeft = z.object({
  path: z.string(),
  branch: z.string(),
  removed: z.boolean(),
  branch_removed: z.boolean(),
  /** Why the tree or the branch stays (uncommitted files, commits on no other branch, git's error); absent when both went. */
  kept: z.string().optional(),
});
export type WorktreeLeft = z.infer<typeof WorktreeLeft>;

/** DELETE /api/v1/agents/:name: the one agent answer that is not the Agent itself. */
export const RemovedAgent = z.object({ name: z.string(), removed: z.literal(true), worktree: WorktreeLeft.optional() });
export type RemovedAgent = z.infer<typeof RemovedAgent>;
