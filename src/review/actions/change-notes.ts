import type { CommitResult, DiscardResult, PullRequestResult, PushResult } from '../../wire/changes.js';
import type { Principal } from '../../wire/token-kinds.js';

type Answer<T> = Omit<T, 'agent'>;

/** How many file names a discard note lists before it counts the rest. */
const LISTED = 8;

/** Who acted, as the thread note says it: the device or hub by its name; nothing for the owner's own CLI or API. */
function by(caller: Principal | null | undefined): string {
  if (caller?.kind === 'device') return ` from ${caller.name}`;
  if (caller?.kind === 'peer') return ` through the hub ${caller.name}`;
  return '';
}

function names(paths: readonly string[]): string {
  const shown = paths.slice(0, LISTED).join(', ');
  return paths.length > LISTED ? `${shown} and ${paths.length - LISTED} more` : shown;
}

/**
 * The thread notes that record a write on an agent's changes (issue 33), so the owner reading the thread later, on
 * any client, sees what was done to the agent's work and from where. Notes only: the agent is never told.
 */
export const changeNotes = {
  commit(c: Answer<CommitResult>, caller?: Principal | null): string {
    // git's summary: `[branch abc1234] subject` then ` 2 files changed, …`; the note keeps both lines' sense on one.
    const [head = '', ...rest] = c.summary.split('\n');
    const stats = rest.map((l) => l.trim()).find((l) => /changed/.test(l));
    return `Committed${by(caller)}: ${head.trim()}${stats ? ` (${stats})` : ''}`;
  },
  push(p: Answer<PushResult>, caller?: Principal | null): string {
    const upstream = p.set_upstream ? ', setting its upstream' : '';
    return `Pushed ${p.branch} to ${p.remote}/${p.remote_branch}${by(caller)}${upstream}.`;
  },
  pullRequest(pr: Answer<PullRequestResult>, caller?: Principal | null): string {
    const into = `${pr.head} → ${pr.base ?? 'the default branch'}`;
    return pr.via === 'gh'
      ? `Opened a pull request (${into})${by(caller)}: ${pr.url}`
      : `Pull request (${into}) started${by(caller)}, to finish on the forge: ${pr.url}`;
  },
  discard(d: Answer<DiscardResult>, caller?: Principal | null): string {
    const parts = [
      ...(d.restored.length ? [`put back ${names(d.restored)} as last committed`] : []),
      ...(d.removed.length ? [`deleted the untracked ${names(d.removed)}`] : []),
    ];
    return `Discarded changes${by(caller)}: ${parts.join('; ') || 'nothing had changed'}.`;
  },
};
