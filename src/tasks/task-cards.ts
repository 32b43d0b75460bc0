import type { Config } from '../config/schema.js';
import type { Message } from '../wire/message.js';
import { failureCardText, type TaskFailureBody } from './failure-card.js';
import { chatOffError } from '../chat/chat-off.js';
import { taskOwner } from './owner.js';

/** Runs remembered as already explained; older ones are forgotten first (a note again is harmless). */
const NOTED_RUNS_CAP = 1000;

/**
 * Task output in chat: which thread a task's output goes to (its owner, spec rules) and the failure card itself. A
 * fallback to `assistant` is explained by a system note in that thread before the run's first output there — a post,
 * an ask, a reminder or the failure card — once per run, so a chatty run does not repeat it under every post.
 */
export class TaskCards {
  private readonly noted = new Set<string>();

  constructor(
    private readonly deps: {
      config(): Config;
      /** LEO_HOME: a task without a workspace works in `<workspace_root>/<task>`, which defaults under it. */
      home: string;
      /** chat.enabled: while false no card is posted (leo run's failure report is answered chatOffError). */
      chatEnabled(): boolean;
      agents(): { name: string; workspace: string }[];
      post(agent: string, p: { text: string; task: string; runId: string }): Message;
      note(agent: string, text: string): Message;
    },
  ) {}

  ownerOf(task: string): { agent: string; note?: string } {
    return taskOwner(this.deps.config(), task, this.deps.agents(), this.deps.home);
  }

  /** A task run is about to put output into `thread`: when that is the fallback for a missing owner, say so. */
  beforeOutput(thread: string, task: string, runId: string | undefined): void {
    const owner = this.ownerOf(task);
    if (!owner.note || owner.agent !== thread) return;
    const key = runId === undefined ? undefined : `${task}\n${runId}`;
    if (key !== undefined && this.noted.has(key)) return;
    this.deps.note(thread, owner.note);
    if (key === undefined) return;
    this.noted.add(key);
    if (this.noted.size > NOTED_RUNS_CAP) this.noted.delete(this.noted.values().next().value!);
  }

  postFailure(f: TaskFailureBody): { id: string; agent: string } {
    if (!this.deps.chatEnabled()) throw chatOffError();
    const owner = this.ownerOf(f.task);
    this.beforeOutput(owner.agent, f.task, f.run_id);
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
