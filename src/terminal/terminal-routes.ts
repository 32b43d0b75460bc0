import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AgentName } from '../wire/names.js';
import type { Clock } from '../core/clock.js';
import { sseFrame } from '../events/event.js';
import { FlushScheduler } from '../events/flush-scheduler.js';
import { openSse } from '../events/open-sse.js';
import { SseStream } from '../events/sse-stream.js';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { notFound } from '../core/leo-error.js';
import { okOf } from '../http/openapi.js';
import { KeysPressed, TerminalKeysBody, TerminalScreen } from '../wire/terminal.js';
import type { TerminalWatch } from './terminal-watch.js';
import type { StreamCaps } from '../events/stream-caps.js';

const Params = z.object({ name: AgentName });
const HEARTBEAT_MS = 20_000;

export interface TerminalRoutesDeps {
  watch: TerminalWatch;
  capture(agent: string): Promise<TerminalScreen>;
  pressKeys(agent: string, keys: readonly string[]): Promise<void>;
  exists(agent: string): boolean;
  isRunning(agent: string): boolean;
  clock: Clock;
  /** The stream caps /api/v1/events counts against: a watched terminal is a stream like any other. */
  caps: StreamCaps;
  /** web.sse_queue, as on /api/v1/events: a watcher that stops reading is cut, not buffered without bound. */
  maxQueued(): number;
}

/**
 * An agent's live terminal: a snapshot, a stream of its changes, and the key bar's keys. The owner's only (operator
 * and paired devices): a pane shows whatever the agent prints, secrets included, and its keys steer the agent, so
 * API clients — dashboards — get neither.
 */
export const terminalRoutes: FastifyPluginAsyncZod<TerminalRoutesDeps> = async (app, deps) => {
  const owner = { config: { access: Access.onAgents } };
  const screen = { ...owner, schema: { params: Params, response: { 200: okOf(TerminalScreen) } } };
  const keys = { ...owner, schema: { params: Params, body: TerminalKeysBody, response: { 200: okOf(KeysPressed) } } };
  const flushes = new FlushScheduler(64);
  const running = (name: string) => {
    if (!deps.exists(name)) throw notFound(`no agent named "${name}"`);
    if (!deps.isRunning(name)) throw new HttpError(409, `${name} is not running`, 'agent_not_running');
    return name;
  };

  app.get('/api/v1/agents/:name/terminal', screen, async (req) => ok(await deps.capture(running(req.params.name))));

  app.get('/api/v1/agents/:name/terminal/stream', { ...owner, schema: { params: Params } }, async (req, reply) => {
    const name = running(req.params.name);
    deps.caps.holdOpen(req.principal, reply.raw);
    let stop = () => undefined as void;
    const stream = new SseStream(openSse(reply), {
      maxQueued: deps.maxQueued(),
      flushes,
      onDropped: () => undefined,
      onClosed: () => stop(),
    });
    const unwatch = deps.watch.watch(name, (e) => {
      if (e.kind === 'screen') return stream.deliver({ frame: sseFrame('screen', e.screen) });
      stream.deliver({ frame: sseFrame('ended', { agent: name, reason: e.reason }) });
      stream.end();
    });
    const beat = deps.clock.setInterval(() => stream.comment('heartbeat'), HEARTBEAT_MS);
    stop = () => {
      beat.cancel();
      unwatch();
    };
    // The handler stays open with its stream, as every streaming route here does (see SseHub.open).
    await new Promise<void>((resolve) => reply.raw.on('close', () => resolve()));
    return reply;
  });

  app.post('/api/v1/agents/:name/terminal/keys', keys, async (req) => {
    const name = running(req.params.name);
    const { keys } = req.body;
    await deps.pressKeys(name, keys);
    return ok({ agent: name, pressed: keys.length });
  });
};
