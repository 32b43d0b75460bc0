import path from 'node:path';
import { LeoError } from '../../../core/leo-error.js';

// Where a moved agent's own workspace goes on the target (docs/DECISIONS.md, "the target's workspace place"): the
// source writes a path under its user's home as `~/…`, the target reads `~/` as its own user's home. A path elsewhere
// (/srv/…) travels as it is.

/** The source's side: `workspace` as it travels in the pack. */
export function portableWorkspace(workspace: string, home: string): string {
  const rel = path.relative(home, workspace);
  const inside = rel !== '' && rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel);
  return inside ? `~/${rel.split(path.sep).join('/')}` : workspace;
}

/** The target's side: the pack's workspace as a path on this host. */
export function localWorkspace(packed: string, home: string): string {
  const local = packed.startsWith('~/') ? path.join(home, packed.slice(2)) : packed;
  if (!path.isAbsolute(local) || path.normalize(local) !== local.replace(/\/+$/, ''))
    throw new LeoError(400, `the pack's workspace ${packed} is not an absolute path`, 'invalid');
  return local;
}

/**
 * Where an arriving workspace goes when its place is taken (the folder a moved-away agent left, or the source itself
 * when a copy lands beside it): beside it, named for the agent (`~/work/ivy-ivy2`), else numbered (`~/work/ivy-2`).
 * Nothing already there is touched or reused.
 */
export function freePlace(place: string, as: string, isFree: (p: string) => boolean): string {
  if (isFree(place)) return place;
  const named = path.basename(place) === as ? [] : [`${place}-${as}`];
  const numbered = Array.from({ length: 98 }, (_, i) => `${place}-${i + 2}`);
  const free = [...named, ...numbered].find(isFree);
  if (!free) throw new LeoError(409, `no free place for the workspace beside ${place}`, 'workspace_exists');
  return free;
}
