import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { request } from './http.js';
import { tempDir } from './temp-home.js';

/**
 * A throwaway git repository shaped like an agent's workspace mid-work: `README.md` and `src/app.ts` committed, then
 * `src/app.ts` modified, `notes/new file.md` untracked (a space in its name) and `gone.txt` deleted. `outside` is a
 * file beside the repo that a symlink inside it (`escape`, committed) points at.
 */
export function makeChangedRepo(root = tempDir('leo-repo-')) {
  const repo = path.join(root, 'repo');
  const outside = path.join(root, 'outside-secret.txt');
  fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
  fs.writeFileSync(outside, 'secret outside the workspace\n');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: repo });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README.md'), '# demo\n');
  fs.writeFileSync(path.join(repo, 'src/app.ts'), 'export const a = 1;\nexport const b = 2;\n');
  fs.writeFileSync(path.join(repo, 'gone.txt'), 'bye\n');
  fs.symlinkSync(outside, path.join(repo, 'escape'));
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  fs.writeFileSync(path.join(repo, 'src/app.ts'), 'export const a = 1;\nexport const b = 3; // <b>bold</b>\n');
  fs.mkdirSync(path.join(repo, 'notes'));
  fs.writeFileSync(path.join(repo, 'notes/new file.md'), 'a new note\nline two\n');
  fs.rmSync(path.join(repo, 'gone.txt'));
  return { root, repo, outside };
}

/** A test daemon whose one agent, `dev` (a shell running cat), works in `repo`. */
export async function startRepoAgent(repo: string, web = ''): Promise<TestDaemon> {
  const t = await startTestDaemon({
    config: `templates:\n  dev: { harness: shell, command: "exec cat", workspace: ${JSON.stringify(repo)} }\n`,
    web,
  });
  const r = await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
    token: t.daemon.operatorToken,
    body: { template: 'dev', name: 'dev' },
  });
  assert.equal(r.status, 201, r.text);
  return t;
}

/**
 * makeChangedRepo with a remote: on a new branch `feature` (its changes still uncommitted), `origin` reading as
 * `remote` (a forge's URL, so pull requests know their forge) while pushes go to the bare repository `origin.git`
 * beside it (url.<bare>.pushInsteadOf), which has `main`. Commits are by "Leo Tester". git runs with HOME at `root`.
 */
export function makeChangedRepoWithOrigin(root: string, remote: string) {
  const made = makeChangedRepo(root);
  const env = { ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1' };
  const bare = path.join(root, 'origin.git');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: made.repo, env });
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare], { env });
  git('config', 'user.name', 'Leo Tester');
  git('config', 'user.email', 'tester@example.com');
  git('remote', 'add', 'origin', remote);
  git('config', `url.${bare}.pushInsteadOf`, remote);
  git('push', '-q', 'origin', 'main');
  git('checkout', '-q', '-b', 'feature');
  return { ...made, bare };
}
