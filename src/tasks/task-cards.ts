import type { Config } from '../config/schema.js';
import type { Message } from '../chat/message.js';
import { failureCardText, type TaskFailureBody } from './failure-card.js';
import { resolveOwner } from './owner.js';

/**
 * Task output in chat: which thread a task's cards go to (its owner, spec rules) and the failure card itself. A
 * fallback to `assistant` is explained by a system note in that thread, next to the card.
 */
export class TaskCards {
  constructor(
    private readonly deps: {
      config(): Config;
      agents(): { name: string; workspace: string }[];
      post(agent: string, p: { text: string; task: string; runId: string }): Message;
      note(agent: string, text: string): Message;
    },
  ) {}

  ownerOf(task: string): { agent: string; note?: string } {
    const t = this.deps.config().tasks[task];
    return resolveOwner(
      {
        task,
        ...(t?.owner ? { owner: t.owner } : {}),
        runtime: t?.runtime ?? 'oneshot',
        ...(t?.workspace ? { workspace: t.workspace } : {}),
      },
      this.deps.agents(),
    );
  }

  postFailure(f: TaskFailureBody): { id: string; agent: string } {
    const owner = this.ownerOf(f.task);
    if (owner.note) this.deps.note(owner.agent, owner.note);
    const card = this.deps.post(owner.agent, {
      text: failureCardText({
        task: f.task,
        runId: f.run_id,
        attempts: f.attempts,
        error: f.error,
        logPath: f.log_path,
      }),
      task: f.task,
      runId: f.run_id,
    });
    return { id: card.id, agent: owner.agent };
  }
}
