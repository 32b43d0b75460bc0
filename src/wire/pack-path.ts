import { z } from 'zod';

/** A file's path inside a pack's folder (a move's parts, a conversation's files): relative, `/`-separated, no `..`. */
export const PackPath = z
  .string()
  .min(1)
  .max(512)
  .refine((p) => !p.startsWith('/') && !p.split('/').some((s) => s === '' || s === '.' || s === '..'), {
    message: 'a relative path inside the pack',
  });

/** A packed file's sha256, lower-case hex: the target checks every file against it before reading one. */
export const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
