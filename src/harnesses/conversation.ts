// How one CLI's conversation travels to another machine (issue 32): its adapter packs the CLI's own record of it on
// the source and puts it back on the target, where the CLI resumes it by the session id unpack answers.
import path from 'node:path';
import type { Exec } from '../core/exec.js';
import { fileDigest } from '../core/file-digest.js';
import type { ConversationFile, ConversationManifest } from '../wire/conversation-pack.js';
import type { AgentHome } from './adapter.js';

export interface ConversationPlace {
  /** The environment the agent's session starts with (where the CLI keeps its state: HOME, CLAUDE_CONFIG_DIR, …). */
  home: AgentHome;
  /** The agent's workspace on this host. */
  workspace: string;
  /** The pack's folder: written by pack, read by unpack. */
  dir: string;
  /** Runs the CLI where its own export or import is the way in (opencode). */
  exec: Exec;
}

export interface ConversationCarrier {
  /** Writes conversation `sessionId` into `place.dir` and describes what it wrote. */
  pack(place: ConversationPlace, sessionId: string): Promise<ConversationManifest>;
  /**
   * Puts a packed conversation (files already checked against the manifest) where the CLI finds it for an agent at
   * `place.workspace`; answers the session id the CLI resumes it by here.
   */
  unpack(place: ConversationPlace, manifest: ConversationManifest): Promise<{ sessionId: string }>;
}

/** A packed file as its manifest names it: `rel` under the pack's folder `dir`, with its size and sha256. */
export async function conversationFile(dir: string, rel: string): Promise<ConversationFile> {
  return { path: rel, ...(await fileDigest(path.join(dir, rel))) };
}
