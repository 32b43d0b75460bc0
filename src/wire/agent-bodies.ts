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

/** DELETE /api/v1/agents/:name: the one agent answer that is not the Agent itself. */
export const RemovedAgent = z.object({ name: z.string(), removed: z.literal(true) });
