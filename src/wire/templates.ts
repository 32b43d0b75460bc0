import { z } from 'zod';

/** GET /api/v1/templates: what a spawn may start from. Pure (zod only): Leo Web reads it. */
export const TemplateSummary = z.object({
  name: z.string(),
  harness: z.string(),
  model: z.string(),
  /** The template's own list, `[]` when it sets none. */
  environments: z.array(z.string()),
  /**
   * What an agent spawned from it without `environments` of its own takes: the template's list, else
   * `defaults.environments` (a spawn's `environments` replaces this whole list, it never adds to it).
   */
  spawn_environments: z.array(z.string()).optional(),
  /** Each agent spawned from it gets its own git worktree on `leo/<agent>` (a spawn's `worktree` overrides it). */
  worktree: z.boolean().optional(),
});
export type TemplateSummary = z.infer<typeof TemplateSummary>;
