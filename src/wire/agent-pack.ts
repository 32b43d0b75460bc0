import { z } from 'zod';
import { ConversationManifest } from './conversation-pack.js';
import { AgentName } from './names.js';
import { PackPath, Sha256 } from './pack-path.js';
import { WorkspaceManifest } from './workspace-pack.js';

/**
 * Everything a move or a copy ships of one agent (issue 32), as the source host packs it and the target host takes
 * it in: the agent's record, its workspace, the CLI's conversation and the thread, each with its own manifest, and
 * the list of every file (part) shipped, which the hub copies from the source to the target one by one. A part's
 * name is its path under the pack's folder (`workspace/refs.bundle`, `conversation/<file>`, `thread/messages.jsonl`).
 */
export const PackPart = z.object({
  name: PackPath,
  bytes: z.number().int().nonnegative(),
  sha256: Sha256,
});
export type PackPart = z.infer<typeof PackPart>;

/** What of the agent's record travels: the target spawns it from these with its own template and environments. */
export const PackedAgent = z.object({
  name: AgentName,
  template: z.string().nullable(),
  harness: z.string().nullable(),
  model: z.string().nullable(),
  environments: z.array(z.string()).nullable(),
  emoji: z.string().nullable(),
  color: z.string().nullable(),
  /** Its workspace on the source; the target places it at the same path under its own home (see the target side). */
  workspace: z.string().nullable(),
});
export type PackedAgent = z.infer<typeof PackedAgent>;

export const AgentPack = z.object({
  version: z.literal(1),
  /** The operation that packed it. */
  move_id: z.string().min(1),
  agent: PackedAgent,
  /** Null for an agent with no workspace. */
  workspace: WorkspaceManifest.nullable(),
  /** Null for a harness with no conversation carrier, or a session never prompted. */
  conversation: ConversationManifest.nullable(),
  /** The thread's own manifest (src/wire/thread-pack.ts), as the chat domain packs it. */
  thread: z.unknown(),
  parts: z.array(PackPart),
});
export type AgentPack = z.infer<typeof AgentPack>;
