// Moving an agent between hosts (issue 32), its workspace: measured against the move's size limit and packed on the
// source host, unpacked on the target into the same files, index, refs and HEAD. A git workspace ships as a bundle of
// its refs, its staged and unstaged changes as binary patches and its untracked files as a tar; any other folder as
// one tar. The parts are files in a folder, named with their sha256 in a manifest (src/wire/workspace-pack.ts) that
// the move sends beside them. git and tar run through the exec seam the service is built with.
import type { Exec } from '../../../core/exec.js';
import type { WorkspaceManifest } from '../../../wire/workspace-pack.js';
import { measureWorkspace, type WorkspaceSize } from './measure.js';
import { packWorkspace } from './pack.js';
import { unpackWorkspace } from './unpack.js';

export { DEFAULT_WORKSPACE_LIMIT_BYTES, WorkspaceTooLargeError, type WorkspaceSize } from './measure.js';
export { CorruptPartError } from './parts.js';
export { TargetNotEmptyError } from './unpack.js';

export class WorkspacePacker {
  constructor(private readonly exec: Exec) {}

  /** What a move of `dir` would ship; refused (WorkspaceTooLargeError) over `limit`. */
  measure(dir: string, limit?: number): Promise<WorkspaceSize> {
    return measureWorkspace(this.exec, dir, limit);
  }

  /** Packs `dir`'s parts into the folder `out`; the manifest names them. */
  pack(dir: string, out: string): Promise<WorkspaceManifest> {
    return packWorkspace(this.exec, dir, out);
  }

  /** Unpacks the parts in `partsDir` into `target` (missing or empty), each checked against its sha256 first. */
  unpack(manifest: WorkspaceManifest, partsDir: string, target: string): Promise<void> {
    return unpackWorkspace(this.exec, manifest, partsDir, target);
  }
}
