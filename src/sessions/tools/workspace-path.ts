import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../../core/path-inside.js';
import { isDeniedFile } from './denied-files.js';
import { ToolError } from './tool.js';
import type { ToolContext } from './tool.js';

/**
 * The real path of `p` (relative to the workspace, or absolute) once it is known to stay inside the workspace and
 * outside every denied root. The checks run on the real path, so neither `..` nor a symlink can lead out, and on the
 * file's identity, so neither can a hard link to a denied file; a path that
 * leaves the workspace as written is refused before the file system is asked, so its answer tells nothing about what
 * lies outside.
 */
export async function resolveInWorkspace(
  ctx: Pick<ToolContext, 'workspace' | 'deniedRoots'>,
  p: string,
): Promise<string> {
  const given = path.resolve(ctx.workspace);
  const root = await fs.realpath(given);
  const target = path.resolve(given, p);
  const outside = new ToolError(`access denied: ${p} is outside the workspace`);
  // Either spelling of the workspace is fine: the model may have learnt the real one from `pwd`.
  if (!isInside(given, target) && !isInside(root, target)) throw outside;
  const real = await fs.realpath(target).catch((err: NodeJS.ErrnoException) => {
    throw new ToolError(err.code === 'ENOENT' ? `no such file or directory: ${p}` : err.message);
  });
  if (!isInside(root, real)) throw outside;
  const realDenied = await Promise.all(
    // A denied root that does not exist yet cannot be reached through a symlink either; compare it as written.
    ctx.deniedRoots.map((denied) => fs.realpath(denied).catch(() => path.resolve(denied))),
  );
  if (realDenied.some((denied) => isInside(denied, real))) throw new ToolError(`access denied: ${p}`);
  if (await isDeniedFile(await fs.stat(real), realDenied)) throw new ToolError(`access denied: ${p}`);
  return real;
}
