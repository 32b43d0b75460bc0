import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../core/clock.js';
import { KeyedQueue } from '../../core/keyed-queue.js';
import type { Logger } from '../../core/logger.js';
import type { EventBus } from '../../events/bus.js';
import type { AttachmentStore } from '../attachments/attachments.js';
import type { ChatStore, NewMessage, Page } from './chat-store.js';
import { formatDelivery, type ReplyContext } from './delivery-format.js';
import { typedAfterRestartNote } from './restart-note.js';
import { answerLabels } from '../../wire/ask-answer.js';
import type { AskInput } from '../../wire/ask-input.js';
import type { Deliverer } from '../../delivery/deliverer.js';
import type { PendingLimit } from './pending-limit.js';
import type { ThreadNotes } from './thread-notes.js';
import { threadOrder } from './thread-order.js';
import { PINNED_AGENT, type Message, type ReadMarker, type Thread } from '../../wire/message.js';
import { NO_SPEECH, noSpeech } from '../../wire/no-speech.js';
import { LeoError, notFound } from '../../core/leo-error.js';
import { stayingDown } from '../../agents/agent-error.js';

/** What the chat needs to know about agents, from the supervisor. */
export interface ChatAgents {
  exists(agent: string): boolean;
  names(): string[];
  isRunning(agent: string): boolean;
  /** Starts a stopped or parked agent; throws when it cannot start. */
  start(agent: string): Promise<unknown>;
  /** Stopped on purpose by its owner (or given up by the daemon): a message from an API client must not start it. */
  staysDown(agent: string): boolean;
  /** Why nothing is sent to `agent` here: the dormant record of an agent that moved away (issue 32); else null. */
  movedError(agent: string): LeoError | null;
  /**
   * Why a message to `agent` is not taken here now: movedError, or a move that has packed its thread (503, to be sent
   * again once the move ends); else null.
   */
  sendError(agent: string): LeoError | null;
  /**
   * Resolves once no move holds `agent` parked (issue 32), at once when none does: true, or false when the daemon
   * stops first (the message then stays pending for the next daemon).
   */
  unheld(agent: string): Promise<boolean>;
}

export interface ChatServiceDeps {
  store: ChatStore;
  notes: ThreadNotes;
  attachments: AttachmentStore;
  /** Read per post: chat.attachment_max_bytes. */
  maxAttachmentBytes(): number;
  bus: EventBus;
  deliverer: Deliverer;
  /** Bounds each agent's undelivered messages; shared with the agent→agent and operator message routes. */
  pending: PendingLimit;
  agents: ChatAgents;
  clock: Clock;
  logger: Logger;
  /**
   * Turns a voice note's audio into text on the worker pool; resolves with the transcript or a failure that names
   * the step (not_audio, ffmpeg, whisper, timeout, missing) and why.
   */
  transcribe(
    audioPath: string,
  ): Promise<{ ok: true; transcript: string } | { ok: false; stage: string; error: string }>;
  /** Told of every message stored (either direction): the push side listens here. */
  onStored?(message: Message): void;
}

export interface DeliveryListener {
  /** Typing begins (the message's turn in the agent's delivery queue has come), with the exact text typed. */
  started(agent: string, messageId: string, text: string): void;
  /** After its delivered state is published. */
  delivered(agent: string, messageId: string): void;
  failed(agent: string, messageId: string): void;
}

export type ChatChange = 'state' | 'answer' | 'transcript' | 'attachments';

interface DeliveryOptions {
  /** False: a voice note goes as its audio alone (sent anyway after no words were heard). */
  transcribe?: boolean;
  /** A leftover of the outbox, typed after a restart: the thread says so once it is in. */
  afterRestart?: boolean;
}

/**
 * How old a message a restart caught unsent may be and still be delivered after it: older, its sender has likely
 * moved on (or sent it again), and an agent acting on a stale instruction is worse than being asked to resend.
 */
export const OUTBOX_MAX_AGE_MS = 10 * 60_000;

/**
 * How long a program gets to read a line after its Enter before a park may stop it. Real time, not the Clock seam:
 * it paces a program, like a look at its terminal.
 */
const TAKE_MS = 500;

/**
 * The thread side of Leo Chat: stores messages, publishes chat.message / chat.updated, and drives an inbound
 * message from pending to delivered or failed.
 */
export class ChatService {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly lanes = new KeyedQueue();
  /** The delivery typing into each agent now, past its hold check (typingDone). */
  private readonly typing = new Map<string, Promise<void>>();
  /** When each agent was last typed a message in full (Date.now()), for typingDone's grace. */
  private readonly lastTyped = new Map<string, number>();
  /** Every delivery waits on this: held at start-up until the agents are restored (recoverLeftovers). */
  private gate: Promise<void> = Promise.resolve();
  private openGate = (): void => {};
  private readonly deliveryListeners: DeliveryListener[] = [];

  constructor(private readonly deps: ChatServiceDeps) {}

  /** Told as each message is typed into an agent, so its reply can be captured. */
  onDelivery(listener: DeliveryListener): void {
    this.deliveryListeners.push(listener);
  }

  /**
   * Resolves once no message is being typed into `agent` (at once when none is). A move parks an agent by holding it
   * (what comes next waits) and then this: stopping it mid-typing would fail a message the owner sent before the move.
   * A message whose Enter was just pressed gets TAKE_MS more: the program reads it after the key, and stopped before
   * that, it never had what the thread calls delivered.
   */
  async typingDone(agent: string): Promise<void> {
    await this.typing.get(agent);
    const left = (this.lastTyped.get(agent) ?? -Infinity) + TAKE_MS - Date.now();
    if (left > 0) await sleep(left);
  }

  /** For shutdown: resolves once every delivery already started has ended (delivered or failed). */
  async drain(): Promise<void> {
    while (this.inFlight.size) await Promise.all([...this.inFlight]);
  }

  /**
   * Stores an inbound message as pending and starts its delivery; resolves once it is stored. Throws 429 queue_full,
   * storing nothing, when the agent already has chat.max_pending_messages undelivered.
   */
  send(
    agent: string,
    m: { text: string; sender?: string; client_id?: string; reply_to?: string; attachmentIds?: string[] },
  ): Message {
    // A moved agent's old address: a hub forwarded it already (host-proxy.ts); here the answer says where it went.
    const refused = this.deps.agents.sendError(agent);
    if (refused) throw refused;
    this.deps.pending.check(agent);
    // The owner's own messages start a stopped agent (leo-chat.md); a can_post client is not the owner, and starting an
    // agent the operator stopped is the operator's call, as it is for the message API (supervisor.wake).
    if (m.sender !== undefined && this.deps.agents.staysDown(agent))
      throw new LeoError(409, stayingDown(agent), 'agent_stopped');
    const resentFrom = m.attachmentIds?.length ? this.deps.attachments.claim(agent, m.attachmentIds) : [];
    // An audio upload makes its message a voice note.
    const voice = (m.attachmentIds ?? []).some((id) =>
      this.deps.attachments.fileOf(agent, id)?.ref.mime.startsWith('audio/'),
    );
    const message = this.add({
      agent,
      direction: 'in',
      kind: voice ? 'voice' : 'text',
      text: m.text,
      state: 'pending',
      ...(m.sender ? { sender: m.sender } : {}),
      ...(m.client_id ? { client_id: m.client_id } : {}),
      ...(m.reply_to ? { reply_to: m.reply_to } : {}),
      ...(m.attachmentIds ? { attachmentIds: m.attachmentIds } : {}),
    });
    // A resend took files over from failed messages: they no longer list them, and every reader is told.
    for (const id of resentFrom) {
      const gave = this.deps.store.get(id);
      if (gave) this.deps.bus.publish('chat.updated', { message: gave, change: 'attachments' satisfies ChatChange });
    }
    this.track(this.deliver(message).finally(this.deps.pending.hold(agent)));
    return message;
  }

  /**
   * An agent's own post (leo_chat_post): outbound text, a file message when it carries files (the text is then the
   * caption), or a task card when it comes from a task run. Files are copied into the attachment store.
   */
  post(agent: string, p: { text: string; files?: string[]; task?: string; runId?: string; replyTo?: string }): Message {
    const refs = (p.files ?? []).map((f) => this.deps.attachments.saveCopy(agent, f, this.deps.maxAttachmentBytes()));
    return this.add({
      agent,
      direction: 'out',
      kind: p.task ? 'task' : refs.length ? 'file' : 'text',
      text: p.text,
      state: '',
      ...(p.task ? { task: p.task } : {}),
      ...(p.runId ? { run_id: p.runId } : {}),
      ...(p.replyTo ? { reply_to: p.replyTo } : {}),
      attachmentIds: refs.map((r) => r.id),
    });
  }

  /**
   * Lets go of a voice note held for having no words: `retry` transcribes it again, `anyway` delivers it as its audio
   * alone. Only a note held so can be let go, once: anything else (already let go, delivered, failed otherwise) is a
   * 409, so a note is never typed into the agent twice.
   */
  release(agent: string, id: string, how: 'retry' | 'anyway'): Message {
    const held = this.deps.store.get(id);
    if (!held || held.agent !== agent || held.direction !== 'in')
      throw notFound(`no message ${id} in ${agent}'s thread`);
    if (held.state !== 'failed' || held.failure !== NO_SPEECH)
      throw new LeoError(409, `message ${id} is not a voice note held for having no words`, 'not_held');
    this.deps.pending.check(agent);
    const message = this.setState(id, 'pending')!;
    this.track(this.deliver(message, { transcribe: how === 'retry' }).finally(this.deps.pending.hold(agent)));
    return message;
  }

  history(agent: string, opts: { limit: number; before?: string }): Page {
    return this.deps.store.page(agent, opts);
  }

  /** A system note in a thread (delivery failures, "Starting…"): outbound, never pushed, never delivered. */
  note(agent: string, text: string): Message {
    return this.deps.notes.note(agent, text);
  }

  /**
   * Marks a thread read up to a message (its newest by default) and tells every chat reader, so the badge another
   * device shows for it follows.
   */
  markRead(agent: string, upTo?: string): ReadMarker {
    const last = upTo ?? this.deps.store.newestId(agent);
    if (last) this.deps.store.markRead(agent, last);
    const unread = this.deps.store.threads().find((t) => t.agent === agent)?.unread ?? 0;
    const marker: ReadMarker = { agent, read_up_to: last, unread };
    this.deps.bus.publish('chat.read', marker);
    return marker;
  }

  threads(): Thread[] {
    const withMessages = new Map(this.deps.store.threads().map((t) => [t.agent, t]));
    const names = new Set([...this.deps.agents.names(), ...withMessages.keys()]);
    return [...names]
      .map((agent): Thread => {
        const t = withMessages.get(agent);
        return { agent, last_message: t?.last ?? null, unread: t?.unread ?? 0, pinned: agent === PINNED_AGENT };
      })
      .sort(threadOrder);
  }

  /**
   * At start-up, before the agents are restored: settles the messages the restart caught pending. chat.db is their
   * durable outbox. One no route had started on never reached the agent: if it is younger than OUTBOX_MAX_AGE_MS it
   * is delivered now, ahead of anything sent since, once agentsRestored() says which agents run, and a note says it
   * was typed after the restart, and when (typedAfterRestartNote); older, it fails with
   * "send it again". One a route had started on may already be in the agent's terminal: it fails with a note that
   * says so, and is never typed twice.
   */
  recoverLeftovers(): void {
    this.gate = new Promise((open) => (this.openGate = open));
    const now = this.deps.clock.now();
    for (const { message: m, started } of this.deps.store.pendingInbound()) {
      if (started)
        this.fail(
          m,
          'the daemon restarted while the message was being typed',
          `Leo restarted while typing your message into ${m.agent}; it may have arrived, so check before resending.`,
        );
      else if (now - Date.parse(m.ts) > OUTBOX_MAX_AGE_MS)
        this.fail(
          m,
          'the daemon restarted before delivery started, too long after the message was sent',
          `Leo restarted before your message was delivered, over ${OUTBOX_MAX_AGE_MS / 60_000} minutes after you ` +
            'sent it; please send it again if it still applies.',
        );
      else this.track(this.deliver(m, { afterRestart: true }).finally(this.deps.pending.hold(m.agent)));
    }
  }

  /**
   * Inbound messages another host stored and had not typed (a thread that moved here with its agent, issue 32): each
   * still pending is delivered here, in the order given, as if it had been sent here.
   */
  deliverArrived(ids: readonly string[]): void {
    for (const id of ids) {
      const m = this.deps.store.get(id);
      if (m?.direction === 'in' && m.state === 'pending')
        this.track(this.deliver(m).finally(this.deps.pending.hold(m.agent)));
    }
  }

  /** The agents are restored (each is known running or not): the deliveries held since start-up go ahead. */
  agentsRestored(): void {
    this.openGate();
  }

  /**
   * Transcribes a voice note before delivery and stores the transcript on the message. Any failure fails the
   * message with a note naming the cause (the audio stays), and nothing is delivered half-done: null. A note with no
   * words is held the same way (failure no_speech) until its sender retries it or sends it anyway (release).
   */
  private async transcribed(message: Message): Promise<string | null> {
    const audio = this.deps.attachments.audioOf(message.id);
    const r = audio
      ? await this.deps.transcribe(audio)
      : ({ ok: false, stage: 'missing', error: 'the voice note has no audio file' } as const);
    if (!r.ok) {
      // A file that only claimed to be audio is no recording to keep: the note says what it is instead.
      const note =
        r.stage === 'not_audio'
          ? `Couldn't transcribe your voice note: ${r.error}. The file was kept.`
          : `Couldn't transcribe your voice note (${r.stage}): ${r.error}. The audio was kept.`;
      this.fail(message, `${r.stage}: ${r.error}`, note);
      return null;
    }
    const updated = this.deps.store.update(message.id, { transcript: r.transcript });
    if (updated) this.deps.bus.publish('chat.updated', { message: updated, change: 'transcript' satisfies ChatChange });
    if (noSpeech(r.transcript)) {
      this.fail(
        message,
        NO_SPEECH,
        'No words recognised in your voice note — it was not sent. Retry or send it anyway.',
      );
      return null;
    }
    return [message.text, r.transcript].filter((t) => t.trim()).join('\n');
  }

  /** What a reply refers to, in the words the agent sees: a task card it posted, or its own ask (with the answer). */
  private replyContext(replyTo: string | undefined): ReplyContext | undefined {
    const target = replyTo ? this.deps.store.get(replyTo) : null;
    if (!target) return undefined;
    if (target.kind === 'ask') {
      const answer = target.answer && {
        message_id: target.id,
        values: target.answer.values,
        labels: answerLabels(target.input as unknown as AskInput, target.answer.values),
        text: target.answer.text,
      };
      return { kind: 'ask', messageId: target.id, at: target.ts, question: target.text, ...(answer ? { answer } : {}) };
    }
    if (target.task && target.run_id)
      return { kind: 'task', task: target.task, runId: target.run_id, at: target.ts, text: target.text };
    return undefined;
  }

  private add(m: NewMessage): Message {
    const message = this.deps.store.insert(m);
    this.deps.bus.publish('chat.message', { message });
    this.deps.onStored?.(message);
    return message;
  }

  /** Failed and its note together, so a crash never leaves a failed message without the note that says why. */
  /**
   * A message pending when its agent moved away: every such message was in the thread the move packed (a send after
   * that is refused, MoveHolds.sendError), so the agent's new place types it. Here it is settled as delivered (the
   * thread's last note says where the agent went), and nobody is asked to send it again.
   */
  private carried(message: Message): void {
    this.setState(message.id, 'delivered');
  }

  private fail(message: Message, why: string, note: string): void {
    this.deps.store.atomically(() => {
      // The thread the message is in now: an agent renamed while it was being delivered has taken its thread along,
      // and a note under the old name would start a second thread there.
      const now = this.setState(message.id, 'failed', why);
      this.note(now?.agent ?? message.agent, note);
    });
  }

  private setState(id: string, state: Message['state'], note?: string): Message | null {
    const message = this.deps.store.update(id, { state, ...(note ? { note } : {}) });
    if (message) this.deps.bus.publish('chat.updated', { message, change: 'state' satisfies ChatChange });
    return message;
  }

  private track(delivery: Promise<void>): void {
    const tracked = delivery.finally(() => this.inFlight.delete(tracked));
    this.inFlight.add(tracked);
  }

  private async deliver(message: Message, opts: DeliveryOptions = {}): Promise<void> {
    // Nothing reaches the agent before the caller's synchronous work is done: a send made inside a transaction (an
    // ask's answer and its reply) must not be typed into a terminal before, or without, its commit. At start-up the
    // gate also holds every delivery, in order, until the agents are restored: before that an agent still running in
    // tmux looks stopped, and would be started a second time.
    await this.gate;
    // One agent's messages go through start, transcription and typing one at a time, in the order they were sent: a
    // burst to a stopped agent starts it once, and a text after a voice note waits for the note's transcript.
    return this.lanes.run(message.agent, () => this.deliverInOrder(message, opts));
  }

  private async deliverInOrder(
    message: Message,
    { transcribe = true, afterRestart = false }: DeliveryOptions,
  ): Promise<void> {
    const { agents, deliverer, logger } = this.deps;
    let ended!: () => void;
    const typed = new Promise<void>((resolve) => (ended = resolve));
    try {
      // A move parked the agent: the message stays pending until the move resumes it here, or marks it moved, when
      // it went along in the packed thread and is typed there (docs/DECISIONS.md, "held messages").
      if (!(await agents.unheld(message.agent))) return;
      // What waited may be gone (a move undone took the thread it arrived in) or settled meanwhile.
      if (this.deps.store.get(message.id)?.state !== 'pending') return;
      const moved = agents.movedError(message.agent);
      if (moved) return this.carried(message);
      // One delivery per agent at a time (its lane): this one is the agent's typing until it ends.
      this.typing.set(message.agent, typed);
      if (!agents.isRunning(message.agent)) {
        // Stopped by the operator between the client's send and its delivery: the message fails, the agent stays down.
        if (message.sender !== undefined && agents.staysDown(message.agent))
          throw new Error(stayingDown(message.agent));
        this.note(message.agent, `Starting ${message.agent}…`);
        await agents.start(message.agent);
      }
      const paths = this.deps.attachments.pathsOf(message.id);
      const said = message.kind === 'voice' && transcribe ? await this.transcribed(message) : message.text;
      if (said === null) return;
      const text = formatDelivery(said, paths, this.replyContext(message.reply_to), message.sender);
      const route = await deliverer.deliver(message.agent, text, () => {
        this.deps.store.markDeliveryStarted(message.id);
        for (const l of this.deliveryListeners) l.started(message.agent, message.id, text);
      });
      // Delivered and its note together, as a failure and its note are.
      this.deps.store.atomically(() => {
        const now = this.setState(message.id, 'delivered');
        if (afterRestart) this.note(now?.agent ?? message.agent, typedAfterRestartNote(message, this.deps.clock.now()));
      });
      this.lastTyped.set(message.agent, Date.now());
      for (const l of this.deliveryListeners) l.delivered(message.agent, message.id);
      logger.debug({ agent: message.agent, id: message.id, route }, 'chat message delivered');
    } catch (err) {
      const why = (err as Error).message;
      logger.warn({ agent: message.agent, id: message.id, err: why }, 'chat message delivery failed');
      for (const l of this.deliveryListeners) l.failed(message.agent, message.id);
      this.fail(message, why, `Couldn't deliver your message: ${why}`);
    } finally {
      if (this.typing.get(message.agent) === typed) this.typing.delete(message.agent);
      ended();
    }
  }
}
