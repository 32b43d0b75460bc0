import { z } from 'zod';
import { PackPart } from './agent-pack.js';

/**
 * An agent's thread as a move or a copy ships it (issue 32): its messages (with their attachments' rows), its read
 * marker and its pending reminders, in files under the pack's `thread/` folder that `files` names with their sizes
 * and sha256. The target takes them in under the agent's name there.
 */
export const ThreadManifest = z.object({
  version: z.literal(1),
  /** The agent's name on the source. */
  agent: z.string().min(1),
  messages: z.number().int().nonnegative(),
  attachments: z.number().int().nonnegative(),
  files: z.array(PackPart),
});
export type ThreadManifest = z.infer<typeof ThreadManifest>;
