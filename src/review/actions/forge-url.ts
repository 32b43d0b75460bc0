/**
 * Pure: where to open a pull request for a branch without `gh` (issue 33): the forge's own "new pull request" page,
 * found from the remote's URL. The forge is told by the host name (github.com and `github.*`, gitlab.com and
 * `gitlab.*`, bitbucket.org, codeberg.org and hosts naming gitea or forgejo); any other host has no page here.
 */

export type Forge = 'github' | 'gitlab' | 'gitea' | 'bitbucket';

/** A remote as its forge's web pages address it: the web host (with a port only for http URLs) and `owner/repo`. */
export interface RemoteRepo {
  host: string;
  repo: string;
}

/** The web address of a remote's repository from its URL (https, ssh:// or scp-like `user@host:path`), or null. */
export function remoteRepo(url: string): RemoteRepo | null {
  let host: string;
  let repoPath: string;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url);
  if (scheme) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    const http = /^https?$/i.test(scheme[1]!);
    // An ssh port is no web port: the forge's pages are on https's.
    host = http ? parsed.host : parsed.hostname;
    repoPath = decodeURIComponent(parsed.pathname);
  } else {
    // scp-like: [user@]host:path, where the host has no slash (a local path with a colon would have one first).
    const m = /^(?:[^@/]+@)?([^:/]+):(.+)$/.exec(url);
    if (!m) return null;
    host = m[1]!;
    repoPath = m[2]!;
  }
  const repo = repoPath
    .replace(/^\/+|\/+$/g, '')
    .replace(/\.git$/, '')
    .replace(/^~[^/]*\//, '');
  if (!host || !repo.includes('/')) return null;
  return { host: host.toLowerCase(), repo };
}

export function forgeOf(host: string): Forge | null {
  const name = host.replace(/:\d+$/, '');
  if (name === 'github.com' || name.startsWith('github.')) return 'github';
  if (name === 'gitlab.com' || name.startsWith('gitlab.')) return 'gitlab';
  if (name === 'bitbucket.org') return 'bitbucket';
  if (name === 'codeberg.org' || /(^|[.-])(gitea|forgejo)([.-]|$)/.test(name)) return 'gitea';
  return null;
}

export interface PullRequestDraft {
  head: string;
  /** null: the forge's default branch. */
  base: string | null;
  title: string;
  body: string;
}

/** A branch name in a URL path: each part encoded, its slashes kept (forges read `feature/x` as one branch). */
const branchPath = (b: string) => b.split('/').map(encodeURIComponent).join('/');

/** The forge's page that opens a pull request from `draft.head`, title and body filled in where the forge takes them. */
export function compareUrl(remote: RemoteRepo, draft: PullRequestDraft): string | null {
  const forge = forgeOf(remote.host);
  if (!forge) return null;
  const root = `https://${remote.host}/${remote.repo}`;
  const q = (params: Record<string, string | null>) =>
    new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== null)).toString();
  const range = (draft.base ? `${branchPath(draft.base)}...` : '') + branchPath(draft.head);
  switch (forge) {
    case 'github':
      return `${root}/compare/${range}?${q({ expand: '1', title: draft.title, body: draft.body || null })}`;
    case 'gitea':
      return `${root}/compare/${range}?${q({ title: draft.title, body: draft.body || null })}`;
    case 'gitlab':
      return `${root}/-/merge_requests/new?${q({
        'merge_request[source_branch]': draft.head,
        'merge_request[target_branch]': draft.base,
        'merge_request[title]': draft.title,
        'merge_request[description]': draft.body || null,
      })}`;
    case 'bitbucket':
      // Bitbucket's page takes the branches only: the title and body are typed there.
      return `${root}/pull-requests/new?${q({ source: draft.head, dest: draft.base })}`;
  }
}
