import fs from 'node:fs';
import type { Exec } from '../core/exec.js';
import { AgentError } from './agent-error.js';
import type { AgentRecord } from './agent-record.js';

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
    const clone = await this.exec('git', ['clone', '--quiet', record.repo, workspace], { timeoutMs: 300_000 });
    if (clone.code !== 0) throw new AgentError('invalid', `git clone ${record.repo} failed: ${clone.stderr.trim()}`);
    if (!record.branch) return;
    const git = (...args: string[]) => this.exec('git', ['-C', workspace, ...args]);
    if ((await git('checkout', '--quiet', record.branch)).code === 0) return;
    const created = await git('checkout', '--quiet', '-b', record.branch, ...(base ? [base] : []));
    if (created.code !== 0)
      throw new AgentError('invalid', `git checkout -b ${record.branch} failed: ${created.stderr.trim()}`);
  }
}
