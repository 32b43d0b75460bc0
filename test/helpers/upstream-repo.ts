import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './temp-home.js';

/**
 * A bare repository standing in for a forge (`remote`) and a clone of it (`repo`) whose branch `main` tracks it, with
 * `README.md` (two lines) pushed. `git` runs in the clone with a fixed identity; `commitAll` commits everything.
 */
export function makeUpstreamRepo() {
  const root = tempDir('leo-upstream-');
  const remote = path.join(root, 'remote.git');
  const repo = path.join(root, 'repo');
  const run = (cwd: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  run(root, 'init', '-q', '--bare', '-b', 'main', remote);
  run(root, 'clone', '-q', remote, repo);
  const git = (...args: string[]) => run(repo, ...args);
  git('checkout', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\nfirst line\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  git('push', '-q', '-u', 'origin', 'main');
  const commitAll = (message: string) => {
    git('add', '-A');
    git('commit', '-q', '-m', message);
  };
  return { root, remote, repo, git, commitAll };
}
