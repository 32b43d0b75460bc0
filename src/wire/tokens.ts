import { z } from 'zod';

/**
 * The wire shapes of paired devices, API clients and peer hubs, apart from the store so Leo Web imports them without the
 * daemon's crypto and SQLite.
 */
export const IssuedTokenKind = z.enum(['device', 'client', 'peer']);
export type IssuedTokenKind = z.infer<typeof IssuedTokenKind>;

/** The wire shape of a paired device, API client or peer hub; the token itself is shown once, at creation, never again. */
export const TokenRecord = z.object({
  id: z.string(),
  kind: IssuedTokenKind,
  name: z.string(),
  can_post: z.boolean(),
  /** A device granted fleet writes (spawn, environments, start/stop…, task runs); always false for an API client or a peer. */
  fleet: z.boolean(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});
export type TokenRecord = z.infer<typeof TokenRecord>;

/** A token as issued: its record and the secret itself, shown this once. */
export const IssuedToken = TokenRecord.extend({ token: z.string() });

export const TokenName = z
  .string()
  .trim()
  .min(1, 'name must not be empty')
  .max(64, 'name must be at most 64 characters')
  .regex(/^[\p{L}\p{N} ._'-]+$/u, "name may hold letters, digits, spaces and . _ ' -");

/** Grants (true) or takes back (false) a device's fleet scope: `PATCH /api/v1/devices/:id`. */
export const DeviceScopeBody = z.strictObject({ fleet: z.boolean() });
