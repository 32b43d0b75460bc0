import { z } from 'zod';

/** POST /api/v1/chat/:agent/messages' body. A pure module (zod only): Leo Web builds its sends from it too. */
export const SendBody = z
  .strictObject({
    text: z.string().trim().max(100_000).default(''),
    reply_to: z.string().min(1).max(64).optional(),
    attachments: z.array(z.string().min(1).max(64)).max(20).optional(),
    /** The client's own id for this send: a repeat under the same id answers the stored message (200), once. */
    client_id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
      .optional(),
  })
  .refine((b) => b.text.length > 0 || (b.attachments?.length ?? 0) > 0, {
    message: 'must not be empty (send text, attachments, or both)',
    path: ['text'],
  });
export type SendBody = z.input<typeof SendBody>;
