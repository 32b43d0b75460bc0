import { z } from 'zod';
import { Sha256 } from './pack-path.js';

/**
 * The manifest of a packed agent workspace (issue 32's move and copy): what the source host packed and the target
 * host unpacks, sent beside the parts. A git workspace ships as its refs (a bundle), its staged and unstaged changes
 * (binary patches) and its untracked files (a tar); any other as one tar of the tree. Each part is named with its size
 * and sha256, which the target checks before it touches a part.
 */
export const WorkspacePartName = z.enum(['refs.bundle', 'staged.patch', 'worktree.patch', 'untracked.tar', 'tree.tar']);
export type WorkspacePartName = z.infer<typeof WorkspacePartName>;

export const WorkspacePart = z.object({
  name: WorkspacePartName,
  bytes: z.number().int().nonnegative(),
  sha256: Sha256,
});
export type WorkspacePart = z.infer<typeof WorkspacePart>;

/**
 * The repository config a git workspace brings along: its remotes and its branches' upstreams, so `git push`,
 * `git pull` and "ahead by 2" work on the target as on the source. Only these keys: others (hooks, filters,
 * `remote.*.uploadpack`, `core.*`) can name a program the target would run.
 */
export const SHIPPED_GIT_CONFIG = /^(remote\.[^\n]+\.(url|pushurl|fetch|push)|branch\.[^\n]+\.(remote|merge|rebase))$/;

const ObjectId = z.string().regex(/^[0-9a-f]{40}([0-9a-f]{24})?$/);

export const WorkspaceManifest = z.discriminatedUnion('kind', [
  z.object({
    version: z.literal(1),
    kind: z.literal('git'),
    /** The checked-out branch's short name; null when HEAD is detached. */
    branch: z.string().min(1).nullable(),
    /** The commit HEAD names; null in a repository (or on a branch) with no commit yet. */
    head: ObjectId.nullable(),
    /** [key, value] in the order `git config --add` takes them (a key can repeat: a remote's fetch refspecs). */
    config: z.array(z.tuple([z.string().regex(SHIPPED_GIT_CONFIG), z.string()])),
    parts: z.array(WorkspacePart),
  }),
  z.object({ version: z.literal(1), kind: z.literal('tree'), parts: z.array(WorkspacePart) }),
]);
export type WorkspaceManifest = z.infer<typeof WorkspaceManifest>;
