import { z } from 'zod';

/** GET /api/v1/templates: what a spawn may start from. Pure (zod only): Leo Web reads it. */
export const TemplateSummary = z.object({
  name: z.string(),
  harness: z.string(),
  model: z.string(),
  environments: z.array(z.string()),
});
export type TemplateSummary = z.infer<typeof TemplateSummary>;
