import type { Clock, TimerHandle } from '../../core/clock.js';
import { rfc3339 } from '../../core/time.js';
import type { EventBus } from '../../events/bus.js';
import type { AnswerBody } from '../../wire/ask-answer.js';
import { AskError } from '../asks/asks.js';
import type { ChatStore } from '../threads/chat-store.js';
import type { Message } from '../../wire/message.js';
import { answerPermissionDialog, permissionDialog, type AgentTerminal } from '../../delivery/permission-dialog.js';
import type { DialogWatch } from './dialog-watch.js';
import { CLAUDE_DECISIONS, sessionPermissions } from '../../harnesses/hook-decisions.js';
import {
  PermissionRequestPayload,
  TERMINAL_ANSWER,
  type PromptConflict,
  summarizePermission,
  permissionInput,
  validatePermissionAnswer,
  type DecisionFormat,
} from '../../wire/permission.js';
import {
  buildQuestionsInput,
  updatedInputFor,
  validateQuestionsAnswer,
  type QuestionsInput,
} from '../../wire/questions.js';

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
  /** Claude's permission_suggestions, applied for the session on "allow_session". */
  suggestions: Record<string, unknown>[];
}

/**
 * The PermissionRequest hook's side of Leo Chat: each hook call posts one open message — a permission prompt, or a
 * questions card for a fitting AskUserQuestion — and is held until chat answers it, the deadline passes, the card is
 * dismissed, or the terminal answers first (the agent's turn moves on, or Claude ends the hook). Only an answer from
 * chat prints anything, so nothing is ever denied behind the user's back.
 *
 * A permission prompt no hook holds any more — its chat deadline passed, or the daemon restarted — while the agent's
 * own dialog is still up in its terminal stays answerable: it is expired with `permission.terminal_waiting`, and an
 * answer is pressed into that dialog. So is a prompt of a harness that draws its dialog only after the hook
 * (`dialogAfterHook`, Codex): its hook is released at once and the prompt stays open, racing the terminal. Such a
 * dialog is watched until it is gone, which closes the prompt (docs/DECISIONS.md, Issue 27: late answers).
 */
export class PermissionPrompts {
  private readonly waiters = new Map<string, Waiter>();
  private readonly timers = new Map<string, TimerHandle>();
  /** Prompts whose answer is being pressed into the terminal now: a second answer meanwhile loses. */
  private readonly answering = new Set<string>();

  constructor(
    private readonly deps: {
      store: ChatStore;
      bus: EventBus;
      clock: Clock;
      timeouts(): { permissionMs: number; questionMs: number };
      onStored?(message: Message): void;
      /** The answer's shape for the agent's harness; Claude's by default. */
      decisions?(agent: string): DecisionFormat;
      /** The agents' terminals, where a prompt no hook holds is answered. */
      terminal: AgentTerminal;
      /** Watches those dialogs until they are gone. */
      dialogs: DialogWatch;
    },
  ) {}

  /** One hook call. `gone` aborts when the hook process goes away (Claude ended it, or died). */
  request(agent: string, payload: unknown, gone: AbortSignal): Promise<PromptOutcome> {
    const parsed = PermissionRequestPayload.safeParse(payload);
    if (!parsed.success) return Promise.resolve({});
    const { tool_name: tool, tool_input: toolInput, permission_suggestions: suggestions = [] } = parsed.data;
    const { permissionMs, questionMs } = this.deps.timeouts();
    const card = tool === 'AskUserQuestion' ? buildQuestionsInput(toolInput) : null;
    const waitMs = card?.ok ? questionMs : permissionMs;
    const decisions = this.deps.decisions?.(agent) ?? CLAUDE_DECISIONS;
    const now = this.deps.clock.now();
    const message = card?.ok
      ? this.deps.store.insert({
          agent,
          direction: 'out',
          kind: 'ask',
          text: card.input.questions.map((q) => q.question).join('\n'),
          state: 'open',
          input: card.input,
          deadline: rfc3339(now + waitMs),
        })
      : this.deps.store.insert({
          agent,
          direction: 'out',
          kind: 'permission',
          text: `${tool}: ${summarizePermission(tool, toolInput)}`,
          state: 'open',
          // Inside `permission`: the spec keeps the message's own deadline for asks (docs/DECISIONS.md).
          permission: {
            tool,
            summary: summarizePermission(tool, toolInput),
            ...permissionInput(tool, toolInput),
            deadline: rfc3339(now + waitMs),
            // Only a held hook can hand rules back: a dialog answered by keys takes a yes or a no.
            ...(suggestions.length && decisions.allowSession && !decisions.dialogAfterHook
              ? { allow_session: true as const }
              : {}),
          },
        });
    this.deps.bus.publish('chat.message', { message });
    this.deps.onStored?.(message);
    if (message.kind === 'permission' && decisions.dialogAfterHook) {
      this.raceTerminal(message, waitMs);
      return Promise.resolve({});
    }

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
      this.waiters.set(id, { agent, settle: finish, toolInput, decisions, suggestions });
      this.timers.set(
        id,
        this.deps.clock.setTimeout(() => {
          if (message.kind === 'permission' && decisions.hookOutlivesDeadline) return this.keepHolding(id);
          finish({});
          void this.timedOut(id);
        }, waitMs),
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
    for (const id of this.deps.dialogs.watched(agent)) this.dialogGone(id);
  }

  /**
   * Records the terminal's answer on a prompt still open (one past chat's deadline stops being answerable), and
   * releases its hook with nothing to print.
   */
  private answeredInTerminal(id: string): void {
    const m = this.deps.store.get(id);
    if (m?.state === 'open') this.settle(m, { state: 'answered', answer: TERMINAL_ANSWER }, 'answer');
    else if (m?.permission?.terminal_waiting) this.settle(m, { permission: plainPermission(m) }, 'state');
    this.waiters.get(id)?.settle({});
  }

  /** Chat's deadline passed on a hook that answers through the harness's API: it stays held for a late answer. */
  private keepHolding(id: string): void {
    this.timers.delete(id);
    const m = this.deps.store.get(id);
    if (m?.state === 'open')
      this.settle(m, { state: 'expired', permission: { ...m.permission!, terminal_waiting: true } }, 'state');
  }

  /** A harness that shows its dialog only after the hook: the prompt stays open until its deadline, racing it. */
  private raceTerminal(m: Message, waitMs: number): void {
    this.timers.set(
      m.id,
      this.deps.clock.setTimeout(() => void this.timedOut(m.id), waitMs),
    );
    this.deps.dialogs.watch(m.id, m.agent, false, () => this.dialogGone(m.id));
  }

  /**
   * Chat's wait ended unanswered (the deadline, or a restart): the prompt expires, and stays answerable while the
   * agent's dialog is still up in its terminal. A questions card just expires: its dialog is a tabbed form that
   * keys cannot answer safely (docs/DECISIONS.md).
   */
  private async timedOut(id: string, opts = { watch: true }): Promise<void> {
    this.stopTimer(id);
    const m = this.deps.store.get(id);
    if (m?.state !== 'open') return;
    if (m.kind !== 'permission') return void this.expire(m, 'timeout');
    const up = permissionDialog(await this.deps.terminal.look(m.agent)) !== null;
    const now = this.deps.store.get(id)!;
    if (now.state !== 'open' || this.answering.has(id)) return;
    if (!up) {
      this.deps.dialogs.stop(id);
      return void this.expire(now, 'timeout');
    }
    this.settle(now, { state: 'expired', permission: { ...now.permission!, terminal_waiting: true } }, 'state');
    if (opts.watch) this.deps.dialogs.watch(id, now.agent, true, () => this.dialogGone(id));
  }

  /**
   * The agent's dialog left its terminal without an answer from chat: answered there, or the turn moved on. An open
   * prompt records the terminal's answer; an expired one stops being answerable.
   */
  private dialogGone(id: string): void {
    if (this.answering.has(id)) return;
    this.deps.dialogs.stop(id);
    this.stopTimer(id);
    const m = this.deps.store.get(id);
    if (m?.state === 'open') this.answeredInTerminal(id);
    else if (m?.permission?.terminal_waiting) this.settle(m, { permission: plainPermission(m) }, 'state');
  }

  private stopTimer(id: string): void {
    this.timers.get(id)?.cancel();
    this.timers.delete(id);
  }

  /** Whether this message is one the hook holds: an open permission prompt or a questions card. */
  owns(m: Message): boolean {
    return m.kind === 'permission' || (m.kind === 'ask' && m.input?.type === 'questions');
  }

  async answer(agent: string, id: string, body: AnswerBody): Promise<Message> {
    const m = this.find(agent, id);
    this.refuseSettled(m);
    const waiter = this.waiters.get(id);
    if (m.kind === 'permission') {
      const checked = validatePermissionAnswer(body);
      if (!checked.ok) throw new AskError(400, checked.error);
      const { decision } = checked;
      if (decision !== 'deny' && m.permission?.input_cut)
        throw new AskError(
          400,
          `values[0]: this prompt's input is too long to approve from chat (${m.permission.input_cut} characters not kept); deny it, or answer it in the agent's terminal`,
        );
      if (decision === 'allow_session' && !(waiter && m.permission?.allow_session))
        throw new AskError(400, 'values[0]: this prompt takes "allow" or "deny" (no rules to allow for the session)');
      if (!waiter) return this.answerInTerminal(m, decision === 'deny' ? 'deny' : 'allow', checked.answer);
      const answered = this.settle(
        m,
        {
          state: 'answered',
          answer: checked.answer,
          ...(m.permission?.terminal_waiting ? { permission: plainPermission(m) } : {}),
        },
        'answer',
      );
      const { decisions } = waiter;
      waiter.settle({
        output:
          decision === 'deny'
            ? decisions.deny(checked.answer.text)
            : decision === 'allow_session'
              ? decisions.allowSession!(sessionPermissions(waiter.suggestions))
              : decisions.allow(),
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

  /** A 409 saying who settled the prompt first, for a client to tell its person plainly. */
  private refuseSettled(m: Message): void {
    if (this.answering.has(m.id))
      throw conflict('answered_elsewhere', `this ${describe(m)} is being answered from another device`);
    if (m.state === 'open' || m.permission?.terminal_waiting) return;
    if (m.state === 'expired')
      throw conflict('prompt_expired', `this ${describe(m)} expired and its dialog is no longer up`);
    if (m.answer?.values[0] === 'terminal')
      throw conflict('answered_in_terminal', `this ${describe(m)} was answered in the terminal`);
    throw conflict('answered_elsewhere', `this ${describe(m)} was already answered from another device`);
  }

  /** No hook holds the prompt: the answer is pressed into the agent's own dialog, once. */
  private async answerInTerminal(
    m: Message,
    decision: 'allow' | 'deny',
    answer: { values: string[]; text: string },
  ): Promise<Message> {
    this.answering.add(m.id);
    let outcome: 'answered' | 'gone';
    try {
      outcome = await answerPermissionDialog(this.deps.terminal, m.agent, decision);
    } catch (err) {
      throw new AskError(502, `${(err as Error).message}: answer it in the terminal`);
    } finally {
      this.answering.delete(m.id);
    }
    if (outcome === 'gone') {
      this.dialogGone(m.id);
      throw conflict('answered_in_terminal', `the agent's dialog is gone: it was answered in the terminal`);
    }
    this.deps.dialogs.stop(m.id);
    this.stopTimer(m.id);
    const now = this.deps.store.get(m.id)!;
    return this.settle(now, { state: 'answered', answer, permission: plainPermission(now) }, 'answer');
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
   * When the daemon shuts down: a prompt's hook does not outlive the daemon, so every held hook is released with
   * nothing to print and every open prompt and card expires, as at its deadline: a prompt whose dialog is still up
   * says so, for the next daemon to look again. A card closes as `timeout`: its wait for chat ended unanswered and the
   * question is back in Claude's terminal dialog. `agent_gone` would say the agent was stopped, which it was not
   * (docs/DECISIONS.md, Issue 15 item 8).
   */
  async expireAll(): Promise<void> {
    this.deps.dialogs.stopAll();
    for (const w of [...this.waiters.values()]) w.settle({});
    for (const id of [...this.timers.keys()]) this.stopTimer(id);
    await Promise.all(this.deps.store.openPrompts().map((m) => this.timedOut(m.id, { watch: false })));
  }

  /**
   * The agent left this host for good (it moved to another, issue 32): its held hooks are released with nothing to
   * print, and its prompts and cards close, none answerable here any more; its terminal went with it. A card closes as
   * `agent_gone`, as an ask does.
   */
  agentGone(agent: string): void {
    for (const w of [...this.waiters.values()]) if (w.agent === agent) w.settle({});
    for (const id of this.deps.dialogs.watched(agent)) {
      this.deps.dialogs.stop(id);
      this.stopTimer(id);
    }
    for (const m of this.deps.store.openPrompts(agent)) this.expire(m, 'agent_gone');
    for (const m of this.deps.store.terminalWaitingPrompts())
      if (m.agent === agent) this.settle(m, { permission: plainPermission(m) }, 'state');
  }

  /**
   * At start-up: the last daemon's prompts lost their hooks, so each expires as at its deadline — answerable while
   * its agent's dialog is still up in the terminal — and those that were waiting there are looked at again.
   */
  async restore(): Promise<void> {
    const looks = this.deps.store.openPrompts().map((m) => this.timedOut(m.id));
    for (const m of this.deps.store.terminalWaitingPrompts()) {
      looks.push(
        this.deps.terminal
          .look(m.agent)
          .then((look) =>
            permissionDialog(look)
              ? this.deps.dialogs.watch(m.id, m.agent, true, () => this.dialogGone(m.id))
              : this.dialogGone(m.id),
          ),
      );
    }
    await Promise.all(looks);
  }

  private find(agent: string, id: string): Message {
    const m = this.deps.store.get(id);
    if (!m || m.agent !== agent || !this.owns(m)) throw new AskError(404, `no prompt ${id} in ${agent}'s thread`);
    return m;
  }

  /** A card open in the store but held by no hook (its daemon died before the start-up sweep): it can only expire. */
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

function conflict(code: PromptConflict, message: string): AskError {
  return new AskError(409, message, code);
}

/** The prompt's permission, without the terminal-waiting mark. */
function plainPermission(m: Message): Message['permission'] {
  const { terminal_waiting: _, ...rest } = m.permission!;
  return rest;
}

function describe(m: Message): string {
  return m.kind === 'permission' ? 'permission prompt' : 'questions card';
}
