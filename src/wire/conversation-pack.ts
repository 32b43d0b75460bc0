import { z } from 'zod';
import { PackPath, Sha256 } from './pack-path.js';

/**
 * The manifest of an agent's packed conversation (issue 32's move and copy): the CLI's own record of the
 * conversation (Claude Code's session transcript, Codex's rollout, opencode's exported session), packed on the source
 * host by that CLI's adapter and put back on the target by the same adapter, so the agent resumes with its context.
 * Sent between hosts beside the files it names; the target checks each file's size and sha256 before it reads one.
 */
export const ConversationFile = z.object({
  path: PackPath,
  bytes: z.number().int().nonnegative(),
  sha256: Sha256,
});
export type ConversationFile = z.infer<typeof ConversationFile>;

export const ConversationManifest = z.object({
  version: z.literal(1),
  /** The harness whose adapter packed it; only that harness's adapter unpacks it. */
  harness: z.string().min(1),
  /** The CLI's own id of the conversation on the source (what its resume took there). */
  session_id: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/),
  /** The agent's workspace on the source: a CLI that records it (Claude's project folder, cwd fields) is re-pointed. */
  workspace: z.string().min(1),
  files: z.array(ConversationFile),
});
export type ConversationManifest = z.infer<typeof ConversationManifest>;
