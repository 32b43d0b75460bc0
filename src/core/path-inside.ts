import path from 'node:path';

/**
 * Whether path `p` is `root` itself or lies under it. Compared as resolved paths, so a trailing separator, a `..`
 * segment or a sibling that merely starts with the root's name ("/work2" beside "/work") cannot fool it; symlinks are
 * the caller's to resolve first (realpath) when they matter.
 */
export function isInside(root: string, p: string): boolean {
  const rel = path.relative(root, p);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel));
}

/** Whether `p` lies under `root` and is not `root` itself: what may be written or deleted in a folder Leo owns. */
export function isBelow(root: string, p: string): boolean {
  return path.relative(root, p) !== '' && isInside(root, p);
}
