import { z } from 'zod';

/** One check's verdict; GET /api/v1/daemon carries the daemon's own (its PATH, its environment). */
export const CheckResult = z.object({
  name: z.string(),
  status: z.enum(['ok', 'missing', 'wrong']),
  detail: z.string(),
  /** What to do about it; present whenever status is not ok. */
  fix: z.string().optional(),
  /** A required part that is not ok makes `leo doctor` exit 1; optional ones (voice notes) only report. */
  required: z.boolean(),
});
export type CheckResult = z.infer<typeof CheckResult>;
