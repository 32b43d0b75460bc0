// What a person checks of a workspace that moved: git's view of it and every file's bytes (the .git folder aside).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** Runs git in `cwd` as a throwaway identity, failing the test on a non-zero exit. */
export const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout;
};

export function workspaceSnapshot(dir: string) {
  const files = Object.fromEntries(
    fs
      .readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => !f.split('/').includes('.git') && fs.lstatSync(path.join(dir, f)).isFile())
      .sort()
      .map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]),
  );
  return {
    files,
    status: git(dir, 'status', '--porcelain=v1', '--branch'),
    staged: git(dir, 'diff', '--cached'),
    log: git(dir, 'log', '--format=%H %s'),
  };
}
