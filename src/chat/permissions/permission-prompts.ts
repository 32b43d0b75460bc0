import type { Clock, TimerHandle } from '../../core/clock.js';
import { rfc3339 } from '../../core/time.js';
import type { EventBus } from '../../events/bus.js';
import type { AnswerBody } from '../asks/ask-answer.js';
import { AskError } from '../asks/asks.js';
import type { ChatStore } from '../threads/chat-store.js';
import type { Message } from '../threads/message.js';
import {
  CLAUDE_DECISIONS,
  PermissionRequestPayload,
  TERMINAL_ANSWER,
  summarizePermission,
  validatePermissionAnswer,
  type DecisionFormat,
} from './permission-prompt.js';
import {
  buildQuestionsInput,
  updatedInputFor,
  validateQuestionsAnswer,
  type QuestionsInput,
} from '../asks/questions.js';

/** What the hook prints: a decision JSON, or nothing (Claude's own dialog stands). */
export interface PromptOutcome {
  output?: string;
}

interface Waiter {
  agent: string;
  settle(outcome: PromptOutcome): void;
  /** How this agent's harness reads the answer, fixed when the hook asked. */
  decisions: DecisionFormat;
  /** Claude's AskUserQuestion tool_input, handed back verbatim inside updatedInput. */
  toolInput: unknown;
}

/**
 * The PermissionRequest hook's side of Leo Chat: each hook call posts one open message — a permission prompt, or a
 * questions card for a fitting AskUserQuestion — and is held until chat answers it, the deadline passes, the card is
 * dismissed, or the terminal answers first (the agent's turn moves on, or Claude ends the hook). Only an answer from
 * chat prints anything, so nothing is ever denied behind the user's back.
 */
export class PermissionPrompts {
  private readonly waiters = new Map<string, Waiter>();
  private readonly timers = new Map<string, TimerHandle>();

  constructor(
    private readonly deps: {
      store: ChatStore;
      bus: EventBus;
      clock: Clock;
      timeouts(): { permissionMs: number; questionMs: number };
      onStored?(message: Message): void;
      /** The answer's shape for the agent's harness; Claude's by default. */
      decisions?(agent: string): DecisionFormat;
    },
  ) {}

  /** One hook call. `gone` aborts when the hook process goes away (Claude ended it, or died). */
  request(agent: string, payload: unknown, gone: AbortSignal): Promise<PromptOutcome> {
    const parsed = PermissionRequestPayload.safeParse(payload);
    if (!parsed.success) return Promise.resolve({});
    const { tool_name: tool, tool_input: toolInput } = parsed.data;
    const { permissionMs, questionMs } = this.deps.timeouts();
    const card = tool === 'AskUserQuestion' ? buildQuestionsInput(toolInput) : null;
    const now = this.deps.clock.now();
    const message = card?.ok
      ? this.deps.store.insert({
          agent,
          direction: 'out',
          kind: 'ask',
          text: card.input.questions.map((q) => q.question).join('\n'),
          state: 'open',
          input: card.input,
          deadline: rfc3339(now + questionMs),
        })
      : this.deps.store.insert({
          agent,
          direction: 'out',
          kind: 'permission',
          text: `${tool}: ${summarizePermission(tool, toolInput)}`,
          state: 'open',
          permission: { tool, summary: summarizePermission(tool, toolInput) },
        });
    this.deps.bus.publish('chat.message', { message });
    this.deps.onStored?.(message);

    return new Promise((resolve) => {
      const id = message.id;
      // A hook that hangs up (Claude crashed, or ended it) leaves nobody to print an answer to.
      const onGone = () => this.answeredInTerminal(id);
      const finish = (outcome: PromptOutcome) => {
        gone.removeEventListener('abort', onGone);
        this.timers.get(id)?.cancel();
        this.timers.delete(id);
        this.waiters.delete(id);
        resolve(outcome);
      };
      const decisions = this.deps.decisions?.(agent) ?? CLAUDE_DECISIONS;
      this.waiters.set(id, { agent, settle: finish, toolInput, decisions });
      this.timers.set(
        id,
        this.deps.clock.setTimeout(
          () => {
            const m = this.deps.store.get(id);
            if (m?.state === 'open') this.expire(m, 'timeout');
            finish({});
          },
          card?.ok ? questionMs : permissionMs,
        ),
      );
      if (gone.aborted) onGone();
      else gone.addEventListener('abort', onGone, { once: true });
    });
  }

  /**
   * The agent's turn ended or it took a new prompt (its Stop or UserPromptSubmit hook), which Claude runs only with
   * no dialog up: any prompt of its still open was answered in the terminal. Claude (2.1.328) does not end the hook
   * then — it leaves it running to the hook's own timeout — so this is where that answer is recorded.
   */
  dialogsClosed(agent: string): void {
    for (const [id, w] of [...this.waiters]) if (w.agent === agent) this.answeredInTerminal(id);
  }

  /** Records the terminal's answer on a prompt still open, and releases its hook with nothing to print. */
  private answeredInTerminal(id: string): void {
    const m = this.deps.store.get(id);
    if (m?.state === 'open') this.settle(m, { state: 'answered', answer: TERMINAL_ANSWER }, 'answer');
    this.waiters.get(id)?.settle({});
  }

  /** Whether this message is one the hook holds: an open permission prompt or a questions card. */
  owns(m: Message): boolean {
    return m.kind === 'permission' || (m.kind === 'ask' && m.input?.type === 'questions');
  }

  answer(agent: string, id: string, body: AnswerBody): Message {
    const m = this.find(agent, id);
    if (m.state !== 'open') throw new AskError(409, `this ${describe(m)} is already ${m.state}`);
    const waiter = this.waiters.get(id);
    if (m.kind === 'permission') {
      const checked = validatePermissionAnswer(body);
      if (!checked.ok) throw new AskError(400, checked.error);
      if (!waiter) return this.orphaned(m);
      const answered = this.settle(m, { state: 'answered', answer: checked.answer }, 'answer');
      const { decisions } = waiter;
      waiter.settle({
        output: checked.decision === 'allow' ? decisions.allow() : decisions.deny(checked.answer.text),
      });
      return answered;
    }
    const input = m.input as QuestionsInput;
    const checked = validateQuestionsAnswer(input, body);
    if (!checked.ok) throw new AskError(400, checked.error);
    if (!waiter) return this.orphaned(m);
    const answered = this.settle(m, { state: 'answered', answer: checked.answer }, 'answer');
    waiter.settle({
      output: waiter.decisions.allow(updatedInputFor(waiter.toolInput, input, checked.answer.answers ?? {})),
    });
    return answered;
  }

  /** Closes an open questions card without answering it; Claude's dialog stands. */
  dismiss(agent: string, id: string): Message {
    // Any message of the thread is found first, so a text message or an ordinary ask is a 400 (not a card), not a 404.
    const m = this.deps.store.get(id);
    if (!m || m.agent !== agent) throw new AskError(404, `no message ${id} in ${agent}'s thread`);
    if (!(m.kind === 'ask' && m.input?.type === 'questions'))
      throw new AskError(400, `message ${id} is not a questions card; only a card can be dismissed`);
    if (m.state !== 'open') throw new AskError(409, `this questions card is already ${m.state}`);
    const closed = this.expire(m, 'dismissed');
    this.waiters.get(id)?.settle({});
    return closed;
  }

  /**
   * At start-up, and when the daemon shuts down: a prompt's hook does not outlive the daemon, so every open prompt
   * and card expires, and any hook still held is released with nothing to print. A card closes as `timeout`: its
   * wait for chat ended unanswered and the question is back in Claude's terminal dialog, exactly as when the deadline
   * passes. `agent_gone` would say the agent was stopped, which it was not (docs/DECISIONS.md, Issue 15 item 8).
   */
  expireAll(): void {
    for (const m of this.deps.store.openPrompts()) this.expire(m, 'timeout');
    for (const w of [...this.waiters.values()]) w.settle({});
  }

  private find(agent: string, id: string): Message {
    const m = this.deps.store.get(id);
    if (!m || m.agent !== agent || !this.owns(m)) throw new AskError(404, `no prompt ${id} in ${agent}'s thread`);
    return m;
  }

  /** Open in the store but held by no hook (its daemon died before the start-up sweep): it can only expire. */
  private orphaned(m: Message): never {
    this.expire(m, 'timeout');
    throw new AskError(409, `the ${describe(m)}'s tool call is gone; it expired`);
  }

  /** A permission prompt never carries a closed_reason (spec); a questions card always does. */
  private expire(m: Message, reason: NonNullable<Message['closed_reason']>): Message {
    return this.settle(
      m,
      m.kind === 'permission' ? { state: 'expired' } : { state: 'expired', closed_reason: reason },
      'state',
    );
  }

  private settle(m: Message, patch: Parameters<ChatStore['update']>[1], change: 'answer' | 'state'): Message {
    const message = this.deps.store.update(m.id, patch)!;
    this.deps.bus.publish('chat.updated', { message, change });
    return message;
  }
}

function describe(m: Message): string {
  return m.kind === 'permission' ? 'permission prompt' : 'questions card';
}
