import fs from 'node:fs';
import type { Exec } from '../core/exec.js';
import { AgentError } from './agent-error.js';
import type { AgentRecord } from './agent-record.js';
import { refProblem, repoProblem } from '../wire/git-args.js';

/**
 * Makes an agent's workspace exist before its first start: an agent with a repo gets a clone (on its branch, created
 * from `base` when the branch does not exist yet); one without gets an empty folder. An existing folder is used as is.
 */
export class Workspaces {
  constructor(private readonly exec: Exec) {}

  async prepare(workspace: string, record: Pick<AgentRecord, 'repo' | 'branch'>, base?: string): Promise<void> {
    if (fs.existsSync(workspace)) return;
    if (!record.repo) {
      fs.mkdirSync(workspace, { recursive: true });
      return;
    }
    // Templates set these too, past the spawn body's checks.
    const problem =
      fieldProblem('repo', record.repo, repoProblem) ??
      (record.branch ? fieldProblem('branch', record.branch, refProblem) : null) ??
      (base ? fieldProblem('base', base, refProblem) : null);
    if (problem) throw new AgentError('invalid', problem);
    try {
      await this.cloneOnBranch(workspace, record.repo, record.branch, base);
    } catch (err) {
      // A clone left on the wrong branch would be taken as the workspace by the next spawn, which uses a folder as is.
      fs.rmSync(workspace, { recursive: true, force: true });
      throw err;
    }
  }

  private async cloneOnBranch(workspace: string, repo: string, branch: string | null, base?: string): Promise<void> {
    const clone = await this.exec('git', ['clone', '--quiet', '--', repo, workspace], { timeoutMs: 300_000 });
    if (clone.code !== 0) throw new AgentError('invalid', `git clone ${repo} failed: ${clone.stderr.trim()}`);
    if (!branch) return;
    const git = (...args: string[]) => this.exec('git', ['-C', workspace, ...args]);
    if ((await git('checkout', '--quiet', branch, '--')).code === 0) return;
    const created = await git('checkout', '--quiet', '-b', branch, ...(base ? [base] : []), '--');
    if (created.code !== 0)
      throw new AgentError('invalid', `git checkout -b ${branch} failed: ${created.stderr.trim()}`);
  }
}

function fieldProblem(field: string, value: string, problem: (value: string) => string | null): string | null {
  const why = problem(value);
  return why ? `${field} ${why}` : null;
}
