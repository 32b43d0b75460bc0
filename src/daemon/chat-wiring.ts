import { agentShipping } from '../agents/agent-error.js';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AgentStore } from '../agents/agent-store.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import { chatRoutes, type ChatRoutesDeps } from '../chat/chat-routes.js';
import type { HookRouter } from '../agents/hook-router.js';
import { ChatService } from '../chat/threads/chat-service.js';
import { AskService } from '../chat/asks/asks.js';
import { PermissionPrompts } from '../chat/permissions/permission-prompts.js';
import { DialogWatch } from '../chat/permissions/dialog-watch.js';
import type { AgentTerminal } from '../delivery/permission-dialog.js';
import { decisionFormat } from '../harnesses/index.js';
import { followChatHooks } from '../chat/chat-hooks.js';
import { ReminderService } from '../chat/reminders/reminders.js';
import { ReplyWatch } from '../chat/replies/reply-watch.js';
import { ReplyStore } from '../chat/replies/reply-store.js';
import { transcriptFormat } from '../harnesses/transcript-format.js';
import { AttachmentPruner } from '../chat/attachments/attachment-pruner.js';
import { reportUnanswered } from '../chat/replies/turn-failure.js';
import type { TurnErrors } from '../observe/turn-errors.js';
import type { MessagePushes } from '../push/message-pushes.js';
import type { Message } from '../wire/message.js';
import { ffprobePath, Transcriber } from '../chat/voice/transcriber.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import type { ChatStore } from '../chat/threads/chat-store.js';
import type { ThreadNotes } from '../chat/threads/thread-notes.js';
import { AttachmentStore } from '../chat/attachments/attachments.js';
import { SqliteThreadCarrier } from '../chat/threads/transfer/sqlite-thread-carrier.js';
import type { Config } from '../config/schema.js';
import type { LeoPaths } from '../core/home.js';
import type { Deliverer } from '../delivery/deliverer.js';
import type { PendingLimit } from '../chat/threads/pending-limit.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { FeatureSet } from '../core/features.js';
import type { Database } from '../store/database.js';
import type { MoveHolds } from '../hosts/move/side/move-holds.js';

export interface ChatWiringDeps {
  app: FastifyInstance;
  db: Database;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  features: FeatureSet;
  supervisor: Supervisor;
  /** The agents a move has parked: their messages wait, pending, until it lets go (issue 32). */
  holds: Pick<MoveHolds, 'whenFree' | 'sendError' | 'of'>;
  /** The agent records: a renamed agent's attachment files move with it, last in the rename's transaction. */
  agents: Pick<AgentStore, 'onRename'>;
  deliverer: Deliverer;
  pending: PendingLimit;
  paths: LeoPaths;
  pool: WorkerPool;
  /** The thread store and its notes, built before the agents domain (which posts notes too). */
  store: ChatStore;
  notes: ThreadNotes;
  /** Built before the metrics, which read its upload totals. */
  attachments: AttachmentStore;
  /** What reaches the owner's devices: messages stored, attention pushes. */
  pushes: MessagePushes;
  config(): Config;
  /** The agents' terminals: a permission prompt no hook holds is answered in its agent's own dialog. */
  terminal: AgentTerminal;
  /** The harness hooks: chat follows SessionStart, prompts, permission requests and Stop. */
  hooks: HookRouter;
  /** The fleet's failed-turn state: a failed turn sets it, the agent's next prompt clears it. */
  turnErrors: TurnErrors;
  /** recent_messages and agent_message: a Leo Chat message counts once it is delivered, from a human (no `from`). */
  announceMessage(from: string | undefined, to: string): void;
  /** On a hub, the inbox and the thread list of every followed host, merged with this daemon's own. */
  elsewhere: ChatRoutesDeps['elsewhere'];
}

/** The attachment store, with the pool judging whether an upload is audio. */
export function buildAttachments(d: {
  db: Database;
  clock: Clock;
  paths: LeoPaths;
  pool: WorkerPool;
  config(): Config;
}): AttachmentStore {
  return new AttachmentStore(
    d.db,
    d.clock,
    path.join(d.paths.stateDir, 'chat', 'attachments'),
    () => d.config().chat.attachment_quota_bytes,
    (file) => d.pool.run('judgeAudio', { file, ffprobe: ffprobePath(d.config()) }),
  );
}

/** Builds Leo Chat's services over the agents domain, and registers /api/v1/chat. */
export async function wireChat(d: ChatWiringDeps) {
  const { store, attachments, pushes } = d;
  /** chat.enabled: read wherever chat would serve, deliver or post, so a reload turns it on or off at once. */
  const enabled = () => d.config().chat.enabled;
  const push = (message: Message) => pushes.message(message);
  const transcriber = new Transcriber({
    config: d.config,
    workDir: path.join(d.paths.stateDir, 'tmp'),
    run: (input) => d.pool.run('transcribe', input),
  });
  const chat = new ChatService({
    store,
    notes: d.notes,
    onStored: push,
    transcribe: (audio) => transcriber.transcribe(audio),
    attachments,
    maxAttachmentBytes: () => d.config().chat.attachment_max_bytes,
    bus: d.bus,
    deliverer: d.deliverer,
    pending: d.pending,
    clock: d.clock,
    logger: d.logger,
    agents: {
      exists: (a) => d.supervisor.has(a),
      names: () => d.supervisor.names(),
      isRunning: (a) => d.supervisor.isRunning(a),
      start: (a) => d.supervisor.start(a),
      staysDown: (a) => d.supervisor.staysDown(a),
      movedError: (a) => d.supervisor.movedError(a),
      sendError: (a) => d.supervisor.movedError(a) ?? d.holds.sendError(a),
      unheld: (a) => d.holds.whenFree(a),
    },
  });
  const replies = new ReplyWatch({
    clock: d.clock,
    logger: d.logger,
    store: new ReplyStore(d.db),
    exists: (a) => d.supervisor.has(a),
    format: (a) => transcriptFormat(d.supervisor.has(a) ? d.supervisor.get(a).harness : ''),
    capture: (input) => d.pool.run('captureReplyTask', input),
    postedAfter: (agent, id) => store.postedAfter(agent, id),
    post: (agent, text, replyTo) => chat.post(agent, { text, replyTo }),
    unanswered: reportUnanswered({
      note: (agent, text) => d.notes.note(agent, text),
      failed: (agent, reason) => d.turnErrors.failed(agent, reason),
      attention: (agent, text) => pushes.attention(agent, text),
    }),
  });
  chat.onDelivery({
    started: (agent, id, text) => replies.started(agent, id, text),
    delivered: (agent, id) => {
      replies.delivered(agent, id);
      d.announceMessage(undefined, agent);
    },
    failed: (agent, id) => replies.failed(agent, id),
  });
  const asks = new AskService({ store, bus: d.bus, clock: d.clock, chat, onStored: push });
  const prompts = new PermissionPrompts({
    store,
    bus: d.bus,
    clock: d.clock,
    timeouts: () => ({
      permissionMs: d.config().chat.permission_timeout,
      questionMs: d.config().chat.question_timeout,
    }),
    onStored: push,
    decisions: (agent) => decisionFormat(d.supervisor.get(agent).harness),
    terminal: d.terminal,
    dialogs: new DialogWatch({ terminal: d.terminal }),
  });
  d.features.add('chat.messages', 'chat.asks', 'chat.permissions', 'chat.questions', 'chat.read');
  await d.app.register(chatRoutes, {
    chat,
    store,
    attachments,
    asks,
    prompts,
    agentExists: (a) => d.supervisor.has(a),
    arriving: (a) => (d.holds.of(a) ? agentShipping(a) : null),
    maxAttachmentBytes: () => d.config().chat.attachment_max_bytes,
    enabled,
    elsewhere: d.elsewhere,
  });
  const reminders = new ReminderService({ db: d.db, clock: d.clock, chat, enabled });
  const threads = new SqliteThreadCarrier({ ...d, store, attachments, chat, asks, prompts, reminders });
  d.features.add('chat.reminders');
  followChatHooks({
    hooks: d.hooks,
    bus: d.bus,
    replies,
    prompts,
    turnErrors: d.turnErrors,
    agentExists: (a) => d.supervisor.has(a),
    enabled,
  });
  const pruner = new AttachmentPruner({
    attachments,
    clock: d.clock,
    logger: d.logger,
    retentionMs: () => d.config().chat.attachment_retention,
    prune: (input) => d.pool.run('pruneFiles', input),
  });
  // Leftovers are settled now; those still worth delivering wait until the agents are restored (start).
  chat.recoverLeftovers();
  void replies.catchUp();
  // Prompts first: their hooks died with the last daemon, and asks must not re-arm a card's deadline. A prompt whose
  // dialog is still up in its agent's terminal stays answerable there (looked at as the agents' panes answer).
  void prompts.restore();
  asks.restore();
  reminders.start();
  pruner.start();
  d.supervisor.onGone((agent) => {
    asks.agentGone(agent);
    replies.agentGone(agent);
  });
  d.agents.onRename((from, to) => attachments.moveAgent(from, to));
  return {
    chat,
    asks,
    reminders,
    /** A moving agent's thread: packed here, taken in here, or closed here once it left (issue 32). */
    threads,
    enabled,
    /** Runs one attachment-pruning pass now (it also runs on its own every six hours). */
    pruneAttachments: () => pruner.runOnce(),
    /** Once the agents are restored: the deliveries held since start-up go ahead. */
    start: () => chat.agentsRestored(),
    /** Before the server closes: held permission hooks are released (printing nothing), so it need not wait on them. */
    release: () => prompts.expireAll(),
    /** Work already under way finishes. */
    async stop(): Promise<void> {
      await chat.drain();
      asks.close();
      reminders.close();
      await pruner.stop();
      await pushes.idle();
      await replies.close();
    },
  };
}
