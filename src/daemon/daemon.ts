import fs from 'node:fs';
import { ulid } from 'ulid';
import { Authenticator } from '../auth/authenticator.js';
import { ensureTokenFile } from '../auth/token-file.js';
import { TokenConnections } from '../auth/token-connections.js';
import { PairingCodes } from '../auth/pairing-codes.js';
import { pairingRoutes } from '../auth/pairing-routes.js';
import { tokenRoutes } from '../auth/token-routes.js';
import { TokenStore } from '../auth/token-store.js';
import { ConfigWatcher, type ReloadResult } from '../config/watch.js';
import { listenOrigin, parseListen, type Config } from '../config/schema.js';
import { wireAgents } from './agents-wiring.js';
import { agentRoutes } from '../agents/agent-routes.js';
import { buildAttachments, wireChat } from './chat-wiring.js';
import type { Domain } from './domain.js';
import { wirePush } from './push-wiring.js';
import { ChatStore } from '../chat/threads/chat-store.js';
import { ThreadNotes } from '../chat/threads/thread-notes.js';
import { PendingLimit } from '../chat/threads/pending-limit.js';
import { wireTasks } from './tasks-wiring.js';
import { wireAgentTools } from './agent-tools-wiring.js';
import { wireSessions } from './sessions-wiring.js';
import { buildUsageMeter, catchUpUsage, wireUsage } from './usage-wiring.js';
import { TurnErrors } from '../observe/turn-errors.js';
import { NeedsInputAlerts } from '../observe/needs-input.js';
import { shouldDropNeedsInput } from '../push/push-payload.js';
import { ReplyStore } from '../chat/replies/reply-store.js';
import { RunHistory } from '../tasks/run-history.js';
import { RunLog } from '../tasks/run-log.js';
import { RunPublisher } from '../tasks/run-publisher.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import { systemClock, type Clock } from '../core/clock.js';
import { openFileLimit } from '../core/open-file-limit.js';
import { resolvePaths, userHome, type LeoPaths } from '../core/home.js';
import { createDaemonLogger, type Logger } from '../core/logger.js';
import { EventBus } from '../events/bus.js';
import { logActivity } from './activity-log.js';
import { wireHosts } from './hosts-wiring.js';
import type { TokenRecord } from '../wire/tokens.js';
import { AttemptLimiter } from '../auth/attempt-limiter.js';
import { eventsRoutes } from '../events/events-routes.js';
import { FeatureSet } from '../events/features.js';
import { SseHub } from '../events/sse-hub.js';
import { StreamCaps } from '../events/stream-caps.js';
import { ConnectionCap, connectionCeiling } from '../http/connection-cap.js';
import { PresenceBoard, viewerOf } from '../push/presence-board.js';
import { createServer, type RouteEntry } from '../http/server.js';
import { TlsReloader, type TlsPair } from '../http/tls-files.js';
import { systemRoutes } from '../http/system-routes.js';
import { runChecks } from '../doctor/checks.js';
import { DaemonChecks } from '../doctor/daemon-checks.js';
import { doctorWarnings } from '../status/status-report.js';
import { webRoutes } from '../http/web-routes.js';
import type https from 'node:https';
import { LoopDelayMonitor } from '../metrics/loop-delay.js';
import { Metrics } from '../metrics/metrics.js';
import { WorkerPool } from '../pool/worker-pool.js';
import { moveAgentRows } from '../store/agent-rows.js';
import { openDatabase, type Database } from '../store/database.js';

export interface DaemonOptions {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  logger?: Logger;
  /** A TLS agent for Web Push services (tests trust a stand-in push service with one). */
  pushAgent?: https.Agent;
}

export interface Daemon {
  paths: LeoPaths;
  bootId: string;
  port: number;
  /** Leo Web's address on the TCP listener (no token in it). */
  appUrl: string;
  operatorToken: string;
  agentToken: string;
  bus: EventBus;
  hub: SseHub;
  pool: WorkerPool;
  db: Database;
  tokens: TokenStore;
  supervisor: Supervisor;
  /** The route table: every registered route with its access rule. */
  routes: readonly RouteEntry[];
  /** The OpenAPI document generated from the routes' schemas (served at /api/v1/openapi.json). */
  openapi(): unknown;
  /** Runs one attachment-pruning pass now (it also runs on its own every six hours). */
  pruneAttachments(): Promise<void>;
  config(): Config;
  reloadConfig(reason: string): Promise<ReloadResult>;
  close(): Promise<void>;
}

/**
 * The composition root: builds every service in dependency order, hands each domain its services, and starts the
 * listeners last. Shutdown runs in reverse: stop accepting, end SSE streams, drain the pool, close the database.
 */
export async function startDaemon(opts: DaemonOptions = {}): Promise<Daemon> {
  const env = opts.env ?? process.env;
  const clock = opts.clock ?? systemClock;
  const paths = resolvePaths(env);
  fs.mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(paths.stateDir, 0o700);

  const logger = opts.logger ?? createDaemonLogger('info');
  const watcher = new ConfigWatcher({ path: paths.configFile, home: userHome(env), logger });
  await watcher.start();
  const config = () => watcher.current;
  // The first load logs before leo.yaml has named a level.
  if (!opts.logger) logger.level = config().log.level;
  // The schema has already validated web.listen, so it parses.
  const listen = parseListen(config().web.listen)!;
  // web.tls: the pair is proven before listening (a bad one refuses the start), then kept current while running.
  const certificates = config().web.tls
    ? new TlsReloader({
        paths: () => config().web.tls,
        logger,
      })
    : null;
  let tls: TlsPair | undefined;
  try {
    tls = certificates?.start();
  } catch (err) {
    watcher.stop();
    throw err;
  }

  const db = openDatabase(paths.database);
  const tokens = new TokenStore(db, clock);
  const operatorToken = ensureTokenFile(paths.operatorTokenFile, 'leo_op');
  const agentToken = ensureTokenFile(paths.agentTokenFile, 'leo_ag');
  const auth = new Authenticator(operatorToken, agentToken, tokens);

  const bootId = ulid();
  const features = new FeatureSet();
  const bus = new EventBus(clock);
  logActivity(bus, logger);
  const hub = new SseHub({ bus, clock, features, bootId, maxQueued: () => config().web.sse_queue });
  const pool = new WorkerPool({ threads: config().pool.threads, maxQueue: config().pool.max_queue });
  await pool.run('ping', { at: clock.now() });
  const loopDelay = new LoopDelayMonitor();
  // Node has already raised the soft open-file limit to the hard one; what it is bounds the TCP connection cap.
  const openFiles = openFileLimit()?.soft ?? null;
  const connections = new ConnectionCap(() => ({
    max: connectionCeiling(config().web.max_connections, openFiles),
    perToken: config().web.max_connections_per_token,
  }));
  if (connections.readout().max < config().web.max_connections)
    logger.warn(
      { open_files: openFiles, max_connections: config().web.max_connections, cap: connections.readout().max },
      'the open-file limit leaves room for fewer TCP connections than web.max_connections: capped lower (raise the limit with ulimit -n)',
    );
  const streams = new StreamCaps(() => ({
    total: config().web.sse_max_subscribers,
    perToken: config().web.sse_max_per_token,
  }));
  const pending = new PendingLimit(() => config().chat.max_pending_messages);
  const attachments = buildAttachments({ db, clock, paths, pool, config });
  const metrics = new Metrics({
    loopDelay: () => loopDelay.summary(),
    sse: () => ({ subscribers: hub.subscribers, dropped: hub.dropped, ...streams.readout() }),
    eventsPublished: () => bus.stats().published,
    pool: () => pool.readout(),
    connections: () => connections.readout(),
    pending: () => pending.readout(),
    uploads: () => ({ quota: config().chat.attachment_quota_bytes, threads: attachments.uploadTotals() }),
  });

  let ready = false;
  let configBroken = false;
  // The bound port is known once the listeners are up (web.listen may ask for any free one).
  let port = listen.port;
  const baseUrl = () => listenOrigin({ host: listen.host, port }, certificates !== null);
  const server = createServer({
    ...(tls ? { tls } : {}),
    logger,
    bodyLimit: config().web.body_limit,
    requestTimeoutMs: config().web.request_timeout,
    allowedHosts: () => config().web.allowed_hosts,
    identify: (t) => auth.identify(t),
    onResponse: (route, method, status) => metrics.countRequest(route, method, status),
    connections,
  });
  const app = server.app;
  certificates?.onReload((pair) => server.setCertificate(pair));
  // After the access hook (registered by createServer), so every admitted request's principal is known here.
  const tokenRequests = new TokenConnections();
  app.addHook('onRequest', async (req, reply) => tokenRequests.track(req.principal, req.raw, reply.raw));
  app.addHook('preClose', async () => hub.closeAll());
  const startedAt = clock.now();
  const checks = new DaemonChecks({
    clock,
    run: () =>
      runChecks({
        paths,
        config: { ok: true, config: config(), warnings: [] },
        env,
        envPath: env.PATH ?? '',
        home: userHome(env),
      }),
  });
  await app.register(systemRoutes, {
    bootId,
    isReady: () => ready,
    features,
    metrics,
    clock,
    startedAt,
    // Requests arrive only once both listeners are up, so the bound port is known by then.
    listeners: () => ({ tcp: `${listen.host}:${port}`, socket: paths.socketFile, app: `${baseUrl()}/` }),
    doctorWarnings: async () => doctorWarnings(await checks.latest()),
  });
  const presence = new PresenceBoard(clock);
  // What a revoked token holds ends with it: its open requests (event streams included), its "thread on screen".
  const revoked = (record: TokenRecord) => {
    tokenRequests.end(record.id);
    presence.forget(viewerOf(record));
  };
  await app.register(tokenRoutes, { tokens, revoked, scopeChanged: (record) => tokenRequests.end(record.id) });
  await app.register(eventsRoutes, { hub, caps: streams });

  const publisher = new RunPublisher({ bus, clock, log: new RunLog(), history: new RunHistory(db) });
  // Failed redemptions of a one-time code, device pairing and a hub's join alike.
  const attempts = new AttemptLimiter(clock);
  await app.register(pairingRoutes, {
    codes: new PairingCodes(db, clock, tokens, 'device'),
    appUrl: baseUrl,
    attempts,
  });
  await wireHosts({
    app,
    db,
    clock,
    logger,
    paths,
    home: userHome(env),
    config,
    reload: (reason) => watcher.reload(reason),
    tokens,
    attempts,
    features,
    baseUrl,
    revoked,
  });
  await app.register(webRoutes);
  const chatStore = new ChatStore(db, clock);
  const notes = new ThreadNotes(chatStore, bus);
  const usage = buildUsageMeter({ db, bus, clock, logger, pool, config });
  const turnErrors = new TurnErrors({ bus, clock });
  const needsInput = new NeedsInputAlerts({
    bus,
    clock,
    superseded: (agent) => shouldDropNeedsInput(agent, chatStore.openPrompts(agent)),
  });
  const agents = await wireAgents({
    app,
    db,
    bus,
    pool,
    clock,
    logger,
    paths,
    features,
    streams,
    agentToken,
    notes,
    threads: chatStore,
    pending,
    config,
    configBroken: () => configBroken,
    reloadConfig: (reason) => watcher.reload(reason),
    baseUrl,
    runs: publisher,
    usage: (agent) => usage.totals(agent),
    turnError: (agent) => turnErrors.of(agent),
    needsInput,
  });
  await wireUsage({ app, meter: usage, hooks: agents.hooks, supervisor: agents.supervisor, features });
  const pushes = await wirePush({
    app,
    db,
    bus,
    clock,
    logger,
    paths,
    presence,
    ...(opts.pushAgent ? { pushAgent: opts.pushAgent } : {}),
    config,
  });
  const chat = await wireChat({
    app,
    db,
    bus,
    clock,
    logger,
    features,
    supervisor: agents.supervisor,
    deliverer: agents.deliverer,
    pending,
    paths,
    pool,
    store: chatStore,
    notes,
    attachments,
    pushes,
    config,
    hooks: agents.hooks,
    turnErrors,
    terminal: agents.terminal,
    announceMessage: agents.announceMessage,
  });
  // Registered once chat exists: a spawn's first prompt is the agent's first chat message, typed when it is ready.
  await app.register(agentRoutes, {
    supervisor: agents.supervisor,
    configBroken: () => configBroken,
    deliverPrompt: (agent, prompt) => void chat.chat.send(agent, { text: prompt }),
  });
  const replyTranscripts = new ReplyStore(db);
  void catchUpUsage({
    meter: usage,
    supervisor: agents.supervisor,
    transcriptOf: (a) => replyTranscripts.transcript(a).path,
  });
  agents.supervisor.onGone((agent) => {
    turnErrors.clear(agent);
    needsInput.clear(agent);
  });
  // A renamed agent keeps its thread, reminders, chat sessions and reply capture: their rows move in the rename's
  // transaction, the attachment files last.
  agents.store.onRename((from, to) => {
    moveAgentRows(db, from, to);
    usage.renamed(from, to);
    turnErrors.renamed(from, to);
    needsInput.renamed(from, to);
    attachments.moveAgent(from, to);
  });
  const tasks = await wireTasks({
    app,
    clock,
    logger,
    paths,
    features,
    agentToken,
    config,
    baseUrl,
    publisher,
    supervisor: agents.supervisor,
    tasks: agents.tasks,
    deliverer: agents.deliverer,
    chat: chat.chat,
    hooks: agents.hooks,
    usage,
  });
  await wireAgentTools({
    app,
    chat: chat.chat,
    asks: chat.asks,
    reminders: chat.reminders,
    enabled: chat.enabled,
    callers: {
      agentExists: (a) => agents.supervisor.has(a),
      currentName: (a) => agents.supervisor.currentName(a),
      taskTurn: (agent) => {
        const turn = tasks.persistent.inFlight(agent);
        return turn && { ...turn, owner: tasks.cards.ownerOf(turn.task).agent };
      },
      taskOutput: (thread, task, runId) => tasks.cards.beforeOutput(thread, task, runId),
    },
  });
  const sessions = await wireSessions({
    app,
    db,
    clock,
    paths,
    features,
    agents: agents.store,
    streams,
    config,
  });

  // Each phase runs in the order the domains were built (domain.ts).
  const domains: Domain[] = [agents, chat, tasks, sessions];

  watcher.on('reload_failed', () => (configBroken = true));
  watcher.on('change', (next: Config, prev: Config) => {
    configBroken = false;
    agents.supervisor.republishAppearances();
    tasks.scheduler.reschedule();
    if (next.web.listen !== prev.web.listen) logger.warn('web.listen changed: restart the daemon to apply it');
    if (next.web.request_timeout !== prev.web.request_timeout)
      logger.warn('web.request_timeout changed: restart the daemon to apply it');
    if (next.pool.threads !== prev.pool.threads) logger.warn('pool.threads changed: restart the daemon to apply it');
    if (next.log.level !== prev.log.level) logger.level = next.log.level;
    if (Boolean(next.web.tls) !== Boolean(prev.web.tls))
      logger.warn('web.tls was added or removed: restart the daemon to switch between HTTP and HTTPS');
    certificates?.check();
  });

  try {
    ({ port } = await server.listen(listen, paths.socketFile));
    // Listeners are up first so /health (ready: false) and /state (agents `restoring`) answer during the restore.
    for (const domain of domains) await domain.start?.();
  } catch (err) {
    await agents.stop();
    await app.close().catch(() => {});
    await pool.close();
    watcher.stop();
    certificates?.stop();
    loopDelay.stop();
    db.close();
    throw err;
  }
  ready = true;
  // The first round now, so that the first `leo status` finds it done.
  void checks.latest().catch(() => {});
  // The app's address, never a token: `leo open` turns it into a link that pairs this machine's browser.
  logger.info(
    { listen: `${listen.host}:${port}`, socket: paths.socketFile, boot_id: bootId, app: `${baseUrl()}/` },
    'leo daemon ready',
  );

  let closing: Promise<void> | null = null;
  return {
    paths,
    bootId,
    port,
    appUrl: `${baseUrl()}/`,
    operatorToken,
    agentToken,
    bus,
    hub,
    pool,
    db,
    tokens,
    supervisor: agents.supervisor,
    routes: server.routes,
    openapi: () => app.swagger(),
    pruneAttachments: chat.pruneAttachments,
    config,
    reloadConfig: (reason) => watcher.reload(reason),
    close() {
      closing ??= (async () => {
        ready = false;
        watcher.stop();
        certificates?.stop();
        // What holds a request open lets go, so closing the server does not wait on it.
        for (const domain of domains) await domain.release?.();
        await app.close();
        // Work already under way finishes before the store closes; agents keep running in tmux for the next daemon.
        for (const domain of domains) await domain.stop?.();
        await pool.close();
        loopDelay.stop();
        db.close();
        logger.info('leo daemon stopped');
      })();
      return closing;
    },
  };
}
