import path from 'node:path';
import { digestMismatch, fileDigest } from '../../../core/file-digest.js';
import type { WorkspaceManifest, WorkspacePart, WorkspacePartName } from '../../../wire/workspace-pack.js';

/** The part `name` written in `dir`, described by its size and sha256. */
export async function describePart(dir: string, name: WorkspacePartName): Promise<WorkspacePart> {
  return { name, ...(await fileDigest(path.join(dir, name))) };
}

/** A part the manifest names that is missing, cut or changed on its way: nothing is unpacked. */
export class CorruptPartError extends Error {
  constructor(
    readonly part: WorkspacePartName,
    why: string,
  ) {
    super(`workspace part ${part} ${why}`);
  }
}

/** Checks every part the manifest names against its size and sha256 before any is used. */
export async function verifyParts(manifest: WorkspaceManifest, dir: string): Promise<void> {
  for (const want of manifest.parts) {
    const why = await digestMismatch(path.join(dir, want.name), want);
    if (why) throw new CorruptPartError(want.name, why);
  }
}
