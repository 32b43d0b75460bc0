import type { FastifyInstance } from 'fastify';
import type { Supervisor } from '../agents/supervisor.js';
import { chatRoutes } from '../chat/chat-routes.js';
import type { HookRouter } from '../agents/hook-router.js';
import type { HookBody } from '../agents/hook-routes.js';
import { ChatService } from '../chat/threads/chat-service.js';
import { AskService } from '../chat/asks/asks.js';
import { PermissionPrompts } from '../chat/permissions/permission-prompts.js';
import { DialogWatch } from '../chat/permissions/dialog-watch.js';
import type { AgentTerminal } from '../delivery/permission-dialog.js';
import { CODEX_DECISIONS } from '../agents/harness/codex.js';
import { CLAUDE_DECISIONS, type DecisionFormat } from '../wire/permission.js';
import { OPENCODE_DECISIONS } from '../agents/harness/opencode-plugin/protocol.js';
import { ReminderService } from '../chat/reminders/reminders.js';
import { ReplyWatch } from '../chat/replies/reply-watch.js';
import { ReplyStore } from '../chat/replies/reply-store.js';
import { transcriptFormat } from '../chat/replies/transcript.js';
import { AttachmentPruner } from '../chat/attachments/attachment-pruner.js';
import { displayName } from '../agents/resolve.js';
import type { Message } from '../wire/message.js';
import { PushDispatcher } from '../push/dispatcher.js';
import { needsInputPush, pushForMessage } from '../push/push-payload.js';
import { failedTurnNote, failureReason, INTERRUPTED_NOTE } from '../chat/replies/turn-failure.js';
import type { TurnErrors } from '../observe/turn-errors.js';
import type { AgentNeedsInputEvent } from '../wire/fleet.js';
import { pushRoutes } from '../push/push-routes.js';
import { SubscriptionStore } from '../push/subscription-store.js';
import type { PresenceBoard } from '../push/presence-board.js';
import { WebPushProvider } from '../push/web-push-provider.js';
import { DeliveryLog, entryOf } from '../push/delivery-log.js';
import { rfc3339 } from '../core/time.js';
import type https from 'node:https';
import { WebhookProvider } from '../push/webhook-provider.js';
import { pushEndpointRefusal, webhookTargetRefusal } from '../push/webhook-target.js';
import { ffprobePath, Transcriber } from '../chat/voice/transcriber.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import type { ChatStore } from '../chat/threads/chat-store.js';
import type { ThreadNotes } from '../chat/threads/thread-notes.js';
import { AttachmentStore } from '../chat/attachments/attachments.js';
import type { Config, Harness } from '../config/schema.js';
import type { LeoPaths } from '../core/home.js';
import path from 'node:path';
import type { Deliverer } from '../delivery/deliverer.js';
import type { PendingLimit } from '../chat/threads/pending-limit.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { FeatureSet } from '../events/features.js';
import type { Database } from '../store/database.js';

export interface ChatWiringDeps {
  app: FastifyInstance;
  db: Database;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  features: FeatureSet;
  supervisor: Supervisor;
  deliverer: Deliverer;
  pending: PendingLimit;
  paths: LeoPaths;
  pool: WorkerPool;
  /** The thread store and its notes, built before the agents domain (which posts notes too). */
  store: ChatStore;
  notes: ThreadNotes;
  /** A TLS agent for push services (tests trust their stand-in push service's certificate with one). */
  pushAgent?: https.Agent;
  /** Built with the token routes, which clear a revoked device's reports. */
  presence: PresenceBoard;
  config(): Config;
  /** The agents' terminals: a permission prompt no hook holds is answered in its agent's own dialog. */
  terminal: AgentTerminal;
  /** The harness hooks: chat follows SessionStart, prompts, permission requests and Stop. */
  hooks: HookRouter;
  /** The fleet's failed-turn state: a failed turn sets it, the agent's next prompt clears it. */
  turnErrors: TurnErrors;
  /** recent_messages and agent_message: a Leo Chat message counts once it is delivered, from a human (no `from`). */
  announceMessage(from: string | undefined, to: string): void;
}

/** Builds Leo Chat's thread store and service over the agents domain, and registers /api/v1/chat. */
/**
 * How each harness's permission hook reads chat's answer: Leo's opencode plugin applies opencode's own reply, Codex
 * reads Claude's JSON but shows its dialog only after the hook; Claude's decision JSON for the rest.
 */
const PROMPT_DECISIONS: Partial<Record<Harness, DecisionFormat>> = {
  codex: CODEX_DECISIONS,
  opencode: OPENCODE_DECISIONS,
};

export async function wireChat(d: ChatWiringDeps) {
  const { store } = d;
  /** chat.enabled: read wherever chat would serve, deliver or post, so a reload turns it on or off at once. */
  const enabled = () => d.config().chat.enabled;
  const subscriptions = new SubscriptionStore(d.db, d.clock);
  const presence = d.presence;
  const endpointRefusal = (endpoint: string) => pushEndpointRefusal(endpoint, d.config().chat.webhook_allowed_hosts);
  const webPush = await WebPushProvider.open({
    keyPath: path.join(d.paths.stateDir, 'vapid.json'),
    subject: d.config().chat.vapid_subject,
    ...(d.pushAgent ? { agent: d.pushAgent } : {}),
    refusal: endpointRefusal,
  });
  const deliveries = new DeliveryLog();
  const webhookRefusal = (url: string) => webhookTargetRefusal(url, d.config().chat.webhook_allowed_hosts);
  const pushes = new PushDispatcher({
    providers: [webPush, new WebhookProvider({ refusal: webhookRefusal })],
    subscriptions: {
      list: () => subscriptions.list(),
      remove: (id) => void subscriptions.remove(id),
      has: (id) => subscriptions.has(id),
    },
    presence,
    logger: d.logger,
    now: () => d.clock.now(),
    onOutcome: (record, outcome) => deliveries.record(entryOf(record, outcome, rfc3339(d.clock.now()))),
  });
  const push = (message: Message) => {
    const record = pushForMessage(message, displayName(message.agent));
    if (record) pushes.dispatch(record);
  };
  const attachments = new AttachmentStore(
    d.db,
    d.clock,
    path.join(d.paths.stateDir, 'chat', 'attachments'),
    () => d.config().chat.attachment_quota_bytes,
    (file) => d.pool.run('judgeAudio', { file, ffprobe: ffprobePath(d.config()) }),
  );
  const transcriber = new Transcriber({
    config: d.config,
    workDir: path.join(d.paths.stateDir, 'tmp'),
    run: (input) => d.pool.run('transcribe', input),
  });
  // The watch and the service refer to each other: replies are posted through the service it watches.
  let chat: ChatService | null = null;
  const replies = new ReplyWatch({
    clock: d.clock,
    logger: d.logger,
    store: new ReplyStore(d.db),
    exists: (a) => d.supervisor.has(a),
    format: (a) => transcriptFormat(d.supervisor.has(a) ? d.supervisor.get(a).harness : ''),
    capture: (input) => d.pool.run('captureReplyTask', input),
    postedAfter: (agent, id) => store.postedAfter(agent, id),
    post: (agent, text, replyTo) => chat?.post(agent, { text, replyTo }),
    unanswered: (agent, _messageId, why) => {
      if (why === 'interrupted') return void d.notes.note(agent, INTERRUPTED_NOTE);
      const reason = failureReason(why.failure);
      d.notes.note(agent, failedTurnNote(why.failure));
      d.turnErrors.failed(agent, reason);
      // The attention push (docs/DECISIONS.md, issue 27): the agent can do nothing more until its owner acts.
      pushes.dispatch(needsInputPush(agent, displayName(agent), `Could not answer: ${reason}`));
    },
  });
  d.bus.subscribe({
    deliver: (event) => {
      if (!enabled()) return;
      // A screen gone still may be a turn that ended without a Stop hook (reply-watch.ts, wentIdle).
      if (event.type === 'agent_activity') {
        const data = event.data as { agent?: unknown; activity?: unknown };
        if (data.activity === 'idle' && typeof data.agent === 'string') replies.wentIdle(data.agent);
      }
      // Each needs_input alert raised is the agent's own attention push (NeedsInputAlerts publishes only changes).
      if (event.type === 'agent_needs_input') {
        const { agent, needs_input } = event.data as AgentNeedsInputEvent;
        if (needs_input) pushes.dispatch(needsInputPush(agent, displayName(agent), needs_input.text));
      }
    },
  });
  chat = new ChatService({
    store,
    notes: d.notes,
    deliveries: {
      started: (agent, id, text) => replies.started(agent, id, text),
      delivered: (agent, id) => {
        replies.delivered(agent, id);
        d.announceMessage(undefined, agent);
      },
      failed: (agent, id) => replies.failed(agent, id),
    },
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
    },
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
    decisions: (agent) => PROMPT_DECISIONS[d.supervisor.get(agent).harness as Harness] ?? CLAUDE_DECISIONS,
    terminal: d.terminal,
    dialogs: new DialogWatch({ terminal: d.terminal }),
  });
  await d.app.register(pushRoutes, {
    store: subscriptions,
    presence,
    vapidPublicKey: () => webPush.publicKey(),
    webhookRefusal,
    endpointRefusal,
    send: (record, opts) => pushes.send(record, opts),
    deliveries,
    now: () => rfc3339(d.clock.now()),
  });
  d.features.add('chat.messages', 'chat.asks', 'chat.permissions', 'chat.questions', 'chat.read');
  await d.app.register(chatRoutes, {
    chat,
    store,
    attachments,
    asks,
    prompts,
    agentExists: (a) => d.supervisor.has(a),
    maxAttachmentBytes: () => d.config().chat.attachment_max_bytes,
    enabled,
  });
  const reminders = new ReminderService({ db: d.db, clock: d.clock, chat, enabled });
  d.features.add('chat.reminders');
  d.hooks.on('session-start', ({ agent, payload }) => {
    replies.sessionStarted(agent, payload);
    return {};
  });
  d.hooks.on('user-prompt-submit', ({ agent }) => {
    prompts.dialogsClosed(agent);
    d.turnErrors.clear(agent);
    return {};
  });
  // A turn's end, or (Claude's StopFailure) a failed turn's: the reply watch posts its reply, or notes the failure once.
  const turnEnded = ({ agent, payload }: HookBody) => {
    prompts.dialogsClosed(agent);
    // With Leo Chat off no reply is posted (the turn's end still ends a persistent task's run: tasks follow Stop too).
    if (enabled()) void replies.onStop(agent, payload);
    return {};
  };
  d.hooks.on('stop', turnEnded);
  d.hooks.on('stop-failure', turnEnded);
  // With Leo Chat off the hook gives no decision: Claude's own dialog in the terminal asks, as without Leo.
  d.hooks.on('permission-request', ({ agent, payload }, gone) =>
    d.supervisor.has(agent) && enabled() ? prompts.request(agent, payload, gone) : {},
  );
  const pruner = new AttachmentPruner({
    attachments,
    clock: d.clock,
    logger: d.logger,
    retentionMs: () => d.config().chat.attachment_retention,
    prune: (input) => d.pool.run('pruneFiles', input),
  });
  return { chat, store, attachments, asks, prompts, reminders, replies, pruner, pushes, enabled };
}
