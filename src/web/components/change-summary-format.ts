import type { ChangeSummary } from '../../wire/changes.js';

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * An agent's change summary as its fleet card says it: "3 files, +120 −4, 2 commits ahead" (`long`) and
 * "3 files +120 −4 ↑2" (`short`, for a phone's card). Null when there is nothing to say: a clean workspace even with
 * its upstream, or one with no summary. Lines only when some changed (a binary file or a rename changes none);
 * commits only against an upstream.
 */
export function changeSummaryText(c: ChangeSummary | null | undefined): { long: string; short: string } | null {
  if (!c) return null;
  const long: string[] = [];
  const short: string[] = [];
  if (c.files > 0) {
    long.push(plural(c.files, 'file'));
    short.push(plural(c.files, 'file'));
  }
  if (c.insertions > 0 || c.deletions > 0) {
    long.push(`+${c.insertions} −${c.deletions}`);
    short.push(`+${c.insertions} −${c.deletions}`);
  }
  const ahead = c.ahead ?? 0;
  const behind = c.behind ?? 0;
  if (ahead > 0 && behind > 0) long.push(`${ahead} ahead, ${behind} behind`);
  else if (ahead > 0) long.push(`${plural(ahead, 'commit')} ahead`);
  else if (behind > 0) long.push(`${plural(behind, 'commit')} behind`);
  if (ahead > 0) short.push(`↑${ahead}`);
  if (behind > 0) short.push(`↓${behind}`);
  if (long.length === 0) return null;
  return { long: long.join(', '), short: short.join(' ') };
}
