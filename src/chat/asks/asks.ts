import type { Clock, TimerHandle } from '../../core/clock.js';
import { rfc3339 } from '../../core/time.js';
import type { EventBus } from '../../events/bus.js';
import { answerLabels, answerSummaryLine, validateAnswer, type AnswerBody } from '../../wire/ask-answer.js';
import { askDeadline, type AskInput } from '../../wire/ask-input.js';
import type { ChatService } from '../threads/chat-service.js';
import type { ChatStore } from '../threads/chat-store.js';
import type { Message } from '../../wire/message.js';
import { LeoError } from '../../core/leo-error.js';

/** One leo_chat_ask call waits at most this long, under Leo's 32-minute MCP tool ceiling. */
export const ASK_CALL_WINDOW_MS = 30 * 60_000;

export type AskResult =
  | { message_id: string; values: string[]; labels: string[]; text: string }
  | { message_id: string; values: []; labels: []; text: ''; timed_out: true; closed_reason: string }
  | { message_id: string; pending: true };

export class AskError extends LeoError {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 502,
    message: string,
    code?: string,
  ) {
    super(status, message, code);
  }
}

export interface AskCaller {
  agent: string;
  task?: string | undefined;
  runId?: string | undefined;
  /** For a persistent task run: whether the task's owner is the asking agent itself. */
  ownerIsAsker?: boolean;
}

/**
 * The ask lifecycle (leo-chat.md, Ask lifecycle): open until answered, withdrawn, timed out or its agent is gone;
 * deadlines kept by the daemon on the Clock; blocked tool calls woken at once; late answers delivered to the agent
 * as an ordinary inbound reply; deadlines re-armed (or expired) after a restart.
 */
export class AskService {
  private readonly timers = new Map<string, TimerHandle>();
  private readonly waiters = new Map<string, Set<(r: AskResult) => void>>();

  constructor(
    private readonly deps: {
      store: ChatStore;
      bus: EventBus;
      clock: Clock;
      chat: ChatService;
      /** Told of each new ask message (the push side listens). */
      onStored?(message: Message): void;
    },
  ) {}

  open(caller: AskCaller, question: string, input: AskInput, timeoutS: number | null): Message {
    const origin = !caller.runId
      ? ({ kind: 'agent' } as const)
      : caller.ownerIsAsker === undefined
        ? ({ kind: 'oneshot_task' } as const)
        : ({ kind: 'persistent_task', ownerIsAsker: caller.ownerIsAsker } as const);
    const d = askDeadline({ timeout_s: timeoutS, context: origin });
    if (!d.ok) throw new AskError(400, d.error);
    const deadline = d.deadlineMs === null ? undefined : this.deps.clock.now() + d.deadlineMs;
    const message = this.deps.store.insert({
      agent: caller.agent,
      direction: 'out',
      kind: 'ask',
      text: question,
      state: 'open',
      input,
      ...(caller.task ? { task: caller.task } : {}),
      ...(caller.runId ? { run_id: caller.runId } : {}),
      ...(deadline !== undefined ? { deadline: rfc3339(deadline) } : {}),
    });
    this.deps.bus.publish('chat.message', { message });
    this.deps.onStored?.(message);
    if (deadline !== undefined) this.arm(message.id, deadline);
    return message;
  }

  /**
   * Waits for the ask to settle, at most the call window; then `pending: true` (the ask stays open). `abandoned`
   * aborts when the caller has gone (its request closed or was cancelled): the call stops counting as blocked at
   * once, so an answer given later reaches the agent as a late-answer delivery instead of a dead response.
   */
  wait(
    caller: AskCaller,
    messageId: string,
    abandoned?: AbortSignal,
    windowMs = ASK_CALL_WINDOW_MS,
  ): Promise<AskResult> {
    const m = this.mine(caller, messageId);
    const settled = this.resultOf(m);
    if (settled) return Promise.resolve(settled);
    const pending = { message_id: messageId, pending: true } as const;
    if (abandoned?.aborted) return Promise.resolve(pending);
    return new Promise((resolve) => {
      let set = this.waiters.get(messageId);
      if (!set) this.waiters.set(messageId, (set = new Set()));
      const done = (r: AskResult) => {
        timer.cancel();
        abandoned?.removeEventListener('abort', gone);
        set.delete(done);
        if (set.size === 0 && this.waiters.get(messageId) === set) this.waiters.delete(messageId);
        resolve(r);
      };
      const gone = () => done(pending);
      const timer = this.deps.clock.setTimeout(gone, windowMs);
      abandoned?.addEventListener('abort', gone, { once: true });
      set.add(done);
    });
  }

  answer(agent: string, messageId: string, body: AnswerBody): Message {
    const m = this.deps.store.get(messageId);
    if (!m || m.agent !== agent || m.kind !== 'ask')
      throw new AskError(404, `no ask ${messageId} in ${agent}'s thread`);
    if (m.state !== 'open') throw new AskError(409, `this ask is already ${m.state}`);
    const input = m.input as unknown as AskInput;
    const checked = validateAnswer(input, body);
    if (!checked.ok) throw new AskError(400, checked.error);
    // The answer and the reply that carries it to the agent commit together: a crash between them would leave an
    // answered ask the agent never hears of, and nothing to show the owner that it did not.
    return this.deps.store.atomically(() => {
      const answered = this.settle(m, { state: 'answered', answer: checked.answer }, 'answer');
      const woke = this.wake(messageId, this.resultOf(answered)!);
      // Nobody is blocked on it: the agent hears the answer as a reply. A task run has no agent to hand it to.
      if (!woke && !m.run_id)
        this.deps.chat.send(agent, { text: answerSummaryLine(input, checked.answer), reply_to: messageId });
      return answered;
    });
  }

  withdraw(caller: AskCaller, messageId: string): { message_id: string; withdrawn: true } {
    const m = this.deps.store.get(messageId);
    if (!m || m.kind !== 'ask') throw new AskError(404, `no ask ${messageId}`);
    if (m.agent !== caller.agent) throw new AskError(400, `ask ${messageId} belongs to another agent`);
    // A questions card is Claude's AskUserQuestion held for the owner by the daemon's hook, not an ask the agent's
    // tools opened: withdrawing it would leave the owner's answer refused and the hook waiting out its deadline.
    if (m.input?.type === 'questions')
      throw new AskError(
        403,
        `message ${messageId} is a questions card for the owner; only your own asks can be withdrawn`,
        'not_own_ask',
      );
    if (m.state !== 'open') throw new AskError(409, `this ask is already ${m.state}`);
    this.expire(m, 'withdrawn');
    return { message_id: messageId, withdrawn: true };
  }

  /** `leo agent stop` and removal close the agent's open asks; suspension and restarts do not. */
  agentGone(agent: string): void {
    for (const m of this.deps.store.openAsks(agent)) this.expire(m, 'agent_gone');
  }

  /** At start-up: deadlines re-armed for the time left, or expired at once if they passed while the daemon was down. */
  restore(): void {
    for (const m of this.deps.store.openAsks()) {
      if (m.deadline) this.arm(m.id, Date.parse(m.deadline));
    }
  }

  close(): void {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }

  private arm(id: string, at: number): void {
    this.timers.get(id)?.cancel();
    if (at <= this.deps.clock.now()) {
      const m = this.deps.store.get(id);
      if (m?.state === 'open') this.expire(m, 'timeout');
      return;
    }
    this.timers.set(
      id,
      this.deps.clock.setTimeout(
        () => {
          this.timers.delete(id);
          const m = this.deps.store.get(id);
          if (m?.state === 'open') this.expire(m, 'timeout');
        },
        Math.max(0, at - this.deps.clock.now()),
      ),
    );
  }

  private expire(m: Message, reason: NonNullable<Message['closed_reason']>): void {
    const closed = this.settle(m, { state: 'expired', closed_reason: reason }, 'state');
    this.wake(m.id, this.resultOf(closed)!);
  }

  private settle(m: Message, patch: Parameters<ChatStore['update']>[1], change: 'answer' | 'state'): Message {
    this.timers.get(m.id)?.cancel();
    this.timers.delete(m.id);
    const message = this.deps.store.update(m.id, patch)!;
    this.deps.bus.publish('chat.updated', { message, change });
    return message;
  }

  private wake(id: string, result: AskResult): boolean {
    const waiting = [...(this.waiters.get(id) ?? [])];
    this.waiters.delete(id);
    for (const done of waiting) done(result);
    return waiting.length > 0;
  }

  private mine(caller: AskCaller, id: string): Message {
    const m = this.deps.store.get(id);
    if (!m || m.kind !== 'ask') throw new AskError(404, `no ask ${id}`);
    if (m.agent !== caller.agent) throw new AskError(400, `ask ${id} belongs to another agent`);
    return m;
  }

  private resultOf(m: Message): AskResult | null {
    if (m.state === 'answered' && m.answer) {
      const input = m.input as unknown as AskInput;
      return {
        message_id: m.id,
        values: m.answer.values,
        labels: answerLabels(input, m.answer.values),
        text: m.answer.text,
      };
    }
    if (m.state === 'expired')
      return {
        message_id: m.id,
        values: [],
        labels: [],
        text: '',
        timed_out: true,
        closed_reason: m.closed_reason ?? 'timeout',
      };
    return null;
  }
}
