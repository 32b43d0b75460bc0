import fs from 'node:fs';
import type https from 'node:https';
import { ulid } from 'ulid';
import { Authenticator } from '../auth/authenticator.js';
import { ensureTokenFile } from '../auth/token-file.js';
import { TokenStore } from '../auth/token-store.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { Machine } from '../hosts/move/operation/move-facts.js';
import type { MoveSide } from '../hosts/move/operation/move-sides.js';
import { PendingLimit } from '../chat/threads/pending-limit.js';
import { ChatStore } from '../chat/threads/chat-store.js';
import { ThreadNotes } from '../chat/threads/thread-notes.js';
import { ReplyStore } from '../chat/replies/reply-store.js';
import { ConfigWatcher, type ReloadResult } from '../config/watch.js';
import { listenOrigin, parseListen, type Config } from '../config/schema.js';
import { systemClock, type Clock } from '../core/clock.js';
import { resolvePaths, userHome, type LeoPaths } from '../core/home.js';
import { createDaemonLogger, type Logger } from '../core/logger.js';
import { runChecks } from '../doctor/checks.js';
import { DaemonChecks } from '../doctor/daemon-checks.js';
import { EventBus } from '../events/bus.js';
import { eventsRoutes } from '../events/events-routes.js';
import { FeatureSet } from '../core/features.js';
import { SseHub } from '../events/sse-hub.js';
import { chatEngineFor } from '../harnesses/index.js';
import type { RouteEntry } from '../http/server.js';
import { systemRoutes } from '../http/system-routes.js';
import { TlsReloader, type TlsPair } from '../http/tls-files.js';
import { webRoutes } from '../http/web-routes.js';
import { NeedsInputAlerts } from '../observe/needs-input.js';
import { TurnErrors } from '../observe/turn-errors.js';
import { WorkerPool } from '../pool/worker-pool.js';
import { PresenceBoard } from '../push/presence-board.js';
import { shouldDropNeedsInput } from '../push/push-payload.js';
import { doctorWarnings } from '../status/status-report.js';
import { openDatabase, type Database } from '../store/database.js';
import { MAIN_CHECKPOINT_PAGES } from '../store/wal-checkpoint.js';
import { RunHistory } from '../tasks/run-history.js';
import { RunLog } from '../tasks/run-log.js';
import { RunPublisher } from '../tasks/run-publisher.js';
import { logActivity } from './activity-log.js';
import { wireAgentTools } from './agent-tools-wiring.js';
import { wireAgentRoutes, wireAgents } from './agents-wiring.js';
import { wireAuth } from './auth-wiring.js';
import { wireHosts } from './hosts-wiring.js';
import type { ThreadCarrier } from '../chat/threads/transfer/thread-carrier.js';
import { buildAttachments, wireChat } from './chat-wiring.js';
import { wireConfig } from './config-wiring.js';
import type { Domain } from './domain.js';
import { wireStore } from './store-wiring.js';
import { wireMoves, wireMoveSides } from './moves-wiring.js';
import { wireObserve } from './observe-wiring.js';
import { wirePush } from './push-wiring.js';
import { wireReview } from './review-wiring.js';
import { wireSessions } from './sessions-wiring.js';
import { wireTasks } from './tasks-wiring.js';
import { wireTerminal } from './terminal-wiring.js';
import { buildUsageMeter, wireUsage } from './usage-wiring.js';
import { buildHttp } from './http-wiring.js';

export interface DaemonOptions {
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  logger?: Logger;
  /** A TLS agent for Web Push services (tests trust a stand-in push service with one). */
  pushAgent?: https.Agent;
  /** The daemons a move talks to (tests fake them); by default the hub's own and its followed hosts'. */
  moveSides?: (machine: Machine) => MoveSide;
  /** How a moved agent's thread is packed and taken in (issue 32); tests of the move's sides hand in their own. */
  threadCarrier?: ThreadCarrier;
  /** Where Leo Web's build is served from (dist/web by default); the offline test serves a copy it changes. */
  webRoot?: string;
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
  const watcher = new ConfigWatcher({ path: paths.configFile, home: userHome(env), chatEngineFor, logger });
  await watcher.start();
  const config = () => watcher.current;
  // The first load logs before leo.yaml has named a level.
  if (!opts.logger) logger.level = config().log.level;
  // The schema has already validated web.listen, so it parses.
  const listen = parseListen(config().web.listen)!;
  // web.tls: the pair is proven before listening (a bad one refuses the start), then kept current while running.
  const certificates = config().web.tls ? new TlsReloader({ paths: () => config().web.tls, logger }) : null;
  let tls: TlsPair | undefined;
  try {
    tls = certificates?.start();
  } catch (err) {
    watcher.stop();
    throw err;
  }

  const db = openDatabase(paths.database, undefined, { checkpointPages: MAIN_CHECKPOINT_PAGES });
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
  const store = wireStore({ db, file: paths.database, pool, logger });
  const pending = new PendingLimit(() => config().chat.max_pending_messages);
  const attachments = buildAttachments({ db, clock, paths, pool, config });
  const http = buildHttp({ clock, logger, config, tls, certificates, auth, bus, hub, pool, pending, attachments });
  const { server, streams } = http;

  let ready = false;
  // The bound port is known once the listeners are up (web.listen may ask for any free one).
  let port = listen.port;
  const baseUrl = () => listenOrigin({ host: listen.host, port }, certificates !== null);
  const app = server.app;
  const presence = new PresenceBoard(clock);
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
    metrics: http.metrics,
    clock,
    startedAt: clock.now(),
    // Requests arrive only once both listeners are up, so the bound port is known by then.
    listeners: () => ({ tcp: `${listen.host}:${port}`, socket: paths.socketFile, app: `${baseUrl()}/` }),
    doctorWarnings: async () => doctorWarnings(await checks.latest()),
  });
  const authWiring = await wireAuth({ app, db, clock, tokens, presence, appUrl: baseUrl });
  await app.register(eventsRoutes, { hub, caps: streams });
  const hosts = await wireHosts({
    app,
    db,
    bus,
    clock,
    logger,
    paths,
    home: userHome(env),
    config,
    reload: (reason) => watcher.reload(reason),
    configChanges: watcher,
    tokens,
    attempts: authWiring.attempts,
    features,
    baseUrl,
    certificates,
    listening: () => ({ host: listen.host, port }),
    revoked: authWiring.revoked,
  });
  await app.register(webRoutes, opts.webRoot ? { root: opts.webRoot } : {});

  // What every domain is built over, the services more than one domain reads, then each domain in the order of what
  // it needs.
  const base = { app, db, bus, pool, clock, logger, paths, features, config };
  const publisher = new RunPublisher({ bus, clock, log: new RunLog(), history: new RunHistory(db) });
  const chatStore = new ChatStore(db, clock);
  const notes = new ThreadNotes(chatStore, bus);
  const usageMeter = buildUsageMeter({ db, bus, clock, logger, pool, config });
  const turnErrors = new TurnErrors({ bus, clock });
  const needsInput = new NeedsInputAlerts({
    bus,
    clock,
    superseded: (agent) => shouldDropNeedsInput(agent, chatStore.openPrompts(agent)),
  });
  const agents = await wireAgents({
    ...base,
    agentToken,
    notes,
    threads: chatStore,
    pending,
    configChanges: watcher,
    baseUrl,
    needsInput,
  });
  const { supervisor } = agents;
  const terminal = await wireTerminal({ ...base, tmux: agents.tmux, supervisor, streams });
  const review = await wireReview({
    ...base,
    exec: agents.exec,
    env,
    supervisor,
    agents: agents.store,
    hooks: agents.hooks,
    notes,
  });
  const settings = await wireConfig({ ...base, watcher, certificates });
  const observe = await wireObserve({
    ...base,
    supervisor,
    agents: agents.store,
    sweeper: agents.sweeper,
    recent: agents.recent,
    runs: publisher,
    usage: usageMeter,
    turnErrors,
    needsInput,
    changes: review.summaries,
    followed: hosts.fanIn,
  });
  const usage = await wireUsage({
    ...base,
    meter: usageMeter,
    hooks: agents.hooks,
    supervisor,
    agents: agents.store,
    replies: new ReplyStore(db),
  });
  const push = await wirePush({ ...base, presence, ...(opts.pushAgent ? { pushAgent: opts.pushAgent } : {}) });
  const chat = await wireChat({
    ...base,
    supervisor,
    holds: agents.holds,
    agents: agents.store,
    deliverer: agents.deliverer,
    pending,
    store: chatStore,
    notes,
    attachments,
    pushes: push.pushes,
    hooks: agents.hooks,
    turnErrors,
    terminal: agents.terminal,
    announceMessage: agents.announceMessage,
    elsewhere: hosts.lists,
  });
  const agentRoutes = await wireAgentRoutes({
    ...base,
    supervisor,
    configBroken: settings.broken,
    deliverPrompt: (agent, prompt) => void chat.chat.send(agent, { text: prompt }),
  });
  const tasks = await wireTasks({
    ...base,
    agentToken,
    configChanges: watcher,
    baseUrl,
    publisher,
    supervisor,
    deliverer: agents.deliverer,
    chat: chat.chat,
    hooks: agents.hooks,
    tasks: observe.tasks,
    usage: usageMeter,
  });
  const agentTools = await wireAgentTools({
    ...base,
    chat: chat.chat,
    asks: chat.asks,
    reminders: chat.reminders,
    enabled: chat.enabled,
    supervisor,
    tasks,
  });
  const sessions = await wireSessions({ ...base, agents: agents.store, streams });
  const moveSide = await wireMoveSides({
    ...base,
    supervisor,
    agents: agents.store,
    holds: agents.holds,
    threads: opts.threadCarrier ?? chat.threads,
    deliveries: chat.chat,
    exec: agents.exec,
    userHome: userHome(env),
  });
  const moves = await wireMoves({
    ...base,
    supervisor,
    agents: agents.store,
    peers: hosts.peers,
    fanIn: hosts.fanIn,
    own: moveSide,
    ...(opts.moveSides ? { sides: opts.moveSides } : {}),
  });

  // Every phase runs in this order (domain.ts says why stop does not run in reverse).
  const domains: Domain[] = [
    store,
    authWiring.domain,
    hosts,
    agents,
    terminal,
    review,
    settings,
    observe,
    usage,
    push,
    chat,
    agentRoutes,
    tasks,
    agentTools,
    sessions,
    moves,
  ];
  try {
    ({ port } = await server.listen(listen, paths.socketFile));
    // Listeners are up first so /health (ready: false) and /state (agents `restoring`) answer during the restore.
    for (const domain of domains) await domain.start?.();
  } catch (err) {
    await agents.stop();
    await app.close().catch(() => {});
    await pool.close();
    await settings.release();
    http.stop();
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
    supervisor,
    routes: server.routes,
    openapi: () => app.swagger(),
    pruneAttachments: chat.pruneAttachments,
    config,
    reloadConfig: (reason) => watcher.reload(reason),
    close() {
      closing ??= (async () => {
        ready = false;
        // What holds a request open lets go (the config watcher first), so closing the server does not wait on it.
        for (const domain of domains) await domain.release?.();
        await app.close();
        // Work already under way finishes before the store closes; agents keep running in tmux for the next daemon.
        for (const domain of domains) await domain.stop?.();
        await pool.close();
        http.stop();
        db.close();
        logger.info('leo daemon stopped');
      })();
      return closing;
    },
  };
}
