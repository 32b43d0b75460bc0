import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AgentStore } from '../agents/agent-store.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { LeoPaths } from '../core/home.js';
import type { FeatureSet } from '../core/features.js';
import type { Database } from '../store/database.js';
import { chatEngines } from '../harnesses/index.js';
import { chatAgentOf } from '../sessions/chat-agent.js';
import { OpenAiEngine } from '../sessions/openai-engine.js';
import { sessionRoutes } from '../sessions/session-routes.js';
import { SessionService, type ChatAgent } from '../sessions/session-service.js';
import { SessionStore } from '../sessions/session-store.js';
import { SessionStreams } from '../sessions/session-streams.js';
import type { StreamCaps } from '../events/stream-caps.js';

export interface SessionsWiringDeps {
  app: FastifyInstance;
  db: Database;
  clock: Clock;
  paths: LeoPaths;
  features: FeatureSet;
  agents: AgentStore;
  /** The long-lived stream caps, shared with /api/v1/events. */
  streams: StreamCaps;
  config(): Config;
}

/**
 * Builds the agent chat endpoint over the agents' records: a Leo agent whose template sets `chat.enabled` answers
 * `POST /agents/:name/chat` through its engine, as chat-agent.ts resolves it.
 */
export async function wireSessions(d: SessionsWiringDeps) {
  // leo.yaml too: it holds environment values (API keys), and an attached file is stored in the session's history.
  const deniedRoots = [d.paths.stateDir, d.paths.configFile];
  const agent = (name: string): ChatAgent | null => {
    const record = d.agents.get(name);
    return record ? chatAgentOf(record, d.config(), d.paths.home) : null;
  };
  const streams = new SessionStreams();
  const sessions = new SessionService({
    store: new SessionStore(d.db, d.clock),
    streams,
    engines: chatEngines(new OpenAiEngine({ clock: d.clock, deniedRoots })),
    agent,
    clock: d.clock,
    retentionMs: () => d.config().chat.session_retention,
  });
  sessions.startRetention();
  await d.app.register(sessionRoutes, {
    sessions,
    streams,
    mentionScope: (name) => ({ workspace: agent(name)?.workspace ?? path.sep, deniedRoots }),
    clock: d.clock,
    caps: d.streams,
    maxQueued: () => d.config().web.sse_queue,
  });
  d.features.add('chat_sessions');
  return {
    /** Before the server closes: the sessions' turns and streams end. */
    release: () => sessions.close(),
  };
}
