import { LeoError, notFound } from '../../core/leo-error.js';
import { parseAddress, type ParsedAddress } from '../../wire/agent-address.js';
import type { Agent } from '../../wire/fleet.js';
import type { Message, MessagePage } from '../../wire/message.js';
import type { ChatTurnResponse, Session, SessionListResponse, TurnDone } from '../../wire/sessions.js';
import { qualifyAgent, qualifyField, qualifyMessage } from '../relay/qualify.js';

/**
 * Which of a hub's routes act on another machine's agent, and how (issue 31, Actions are proxied). Pure: the request
 * as fastify parsed it in, the host's request and the renaming of its answer out; the I/O is `host-proxy.ts`.
 */

/** Where a route names the machine: an agent's address in a path parameter or the query, or a bare host name. */
type Where =
  | { in: 'params'; key: 'name' | 'agent' }
  | { in: 'query'; key: 'agent' }
  | { in: 'query'; key: 'host'; bare: true }
  | { in: 'body'; key: 'host'; bare: true }
  /** Named, but the hub's own work: it is never passed on. */
  | { in: 'hub' };

/** What the hub does to the `data` of the host's JSON answer so the app reads `name@host` throughout. */
type Rename = (data: never, host: string) => unknown;

/** What the hub does to each frame's data of a host's event stream (text/event-stream), by the frame's name. */
export type FrameRename = (event: string, data: never, host: string) => unknown;

export interface ProxyRule {
  where: Where;
  /** Null: the answer is passed on as the host gave it (no agent names in it, or not JSON). */
  rename: Rename | null;
  /** The route streams events whose data names the agent (its frames are renamed on the way). */
  frames?: FrameRename;
  /** The answer is the spec's bare JSON, not Leo's `{ok, data}` (the chat endpoint): `rename` takes all of it. */
  bare?: true;
  /** The host answers only when the agent's turn is over: no deadline on its answer's head, the caller's hang-up only. */
  waits?: true;
  /** What the route sends reaches a moved agent at its new address (issue 32), not the record it left. */
  follows?: true;
}

const agent = (a: Agent, host: string) => qualifyAgent(a, host);
const message = (m: Message, host: string) => qualifyMessage(m, host);
const messages = (ms: Message[], host: string) => ms.map((m) => qualifyMessage(m, host));
const page = (p: MessagePage, host: string) => ({ ...p, messages: messages(p.messages, host) });
const field =
  <K extends string>(key: K) =>
  (d: Record<K, string>, host: string) =>
    qualifyField(d, key, host);

/** A stream's frames that carry the agent's name in `key` (a frame without it goes on as it is). */
const framesNaming =
  (key: string): FrameRename =>
  (_event, d: unknown, host) =>
    isObject(d) && typeof d[key] === 'string' ? qualifyField(d as Record<string, string>, key, host) : d;

const param = (key: 'name' | 'agent', rename: Rename | null): ProxyRule => ({ where: { in: 'params', key }, rename });
const onAgent = (rename: Rename | null) => param('name', rename);
const onThread = (rename: Rename | null) => param('agent', rename);
/** A send: forwarded to where a moved agent went. */
const sending = (rule: ProxyRule): ProxyRule => ({ ...rule, follows: true });
const perHost: ProxyRule = { where: { in: 'query', key: 'host', bare: true }, rename: null };
/** A move or copy spans two machines, so the hub runs it itself (src/hosts/move/operation/move-runner.ts). */
const onHub: ProxyRule = { where: { in: 'hub' }, rename: null };

const session = (s: Session, host: string) => qualifyField(s, 'agent_name', host);
const turnDone = (d: TurnDone, host: string) => ({
  ...qualifyField(d, 'agentName', host),
  session: session(d.session, host),
});
/** `POST /agents/:name/chat`: a JSON turn's `done` and an SSE turn's `done` frame name the agent; a 202 does not. */
const chatTurn: ProxyRule = {
  ...onAgent((t: Partial<ChatTurnResponse>, host) => (t.done ? { ...t, done: turnDone(t.done, host) } : t)),
  bare: true,
  waits: true,
  frames: (event, d: TurnDone, host) => (event === 'done' ? turnDone(d, host) : d),
};
const sessionList: ProxyRule = {
  ...onAgent((l: SessionListResponse, host) => ({ ...l, sessions: l.sessions.map((s) => session(s, host)) })),
  bare: true,
};

/**
 * Every agent-scoped route a hub passes on, keyed "METHOD url" as fastify registers it (a HEAD twin takes its GET's
 * rule), and those it answers itself though they name another machine's agent (onHub). Not here, on purpose: `PUT /api/v1/chat/:agent/presence` (the hub sends the pushes, so it keeps who is
 * looking), the agents' own routes (`/api/agent/…`: an agent calls its own daemon), tasks (a task's name is no agent's)
 * and the chat endpoint's `/sessions/:id` follow-ups (a session's id names no machine: docs/DECISIONS.md).
 */
const RULES: Record<string, ProxyRule> = {
  'GET /api/v1/agents/:name': onAgent(agent),
  'DELETE /api/v1/agents/:name': onAgent(field('name')),
  'POST /api/v1/agents/:name/stop': onAgent(agent),
  'POST /api/v1/agents/:name/start': onAgent(agent),
  'POST /api/v1/agents/:name/restart': onAgent(agent),
  'POST /api/v1/agents/:name/reset': onAgent(agent),
  'POST /api/v1/agents/:name/rename': onAgent(agent),
  'POST /api/v1/agents/:name/template': onAgent(agent),
  'POST /api/v1/agents/:name/environments': onAgent(agent),
  'PUT /api/v1/agents/:name/appearance': onAgent(agent),
  'POST /api/v1/agents/:name/message': sending(onAgent(field('to'))),
  'GET /api/v1/agents/:name/terminal': onAgent(field('agent')),
  'GET /api/v1/agents/:name/terminal/stream': { ...onAgent(null), frames: framesNaming('agent') },
  'POST /api/v1/agents/:name/terminal/keys': onAgent(field('agent')),
  'GET /api/v1/agents/:name/changes': onAgent(field('agent')),
  'GET /api/v1/agents/:name/changes/diff': onAgent(field('agent')),
  'POST /api/v1/agents/:name/changes/commit': onAgent(field('agent')),
  'POST /api/v1/agents/:name/changes/discard': onAgent(field('agent')),
  'POST /api/v1/agents/:name/changes/push': onAgent(field('agent')),
  'POST /api/v1/agents/:name/changes/pull-request': onAgent(field('agent')),
  'GET /api/v1/agents/:name/usage': onAgent(field('agent')),
  'POST /api/v1/agents/:name/move': onHub,
  'POST /api/v1/agents/:name/copy': onHub,
  'POST /api/v1/agents/spawn': { where: { in: 'body', key: 'host', bare: true }, rename: agent },
  'GET /api/v1/templates': perHost,
  'GET /api/v1/environments': perHost,
  'GET /api/v1/chat/:agent/messages': onThread(page),
  'POST /api/v1/chat/:agent/messages': sending(onThread(message)),
  'GET /api/v1/chat/:agent/attachments/:id': onThread(null),
  'POST /api/v1/chat/:agent/messages/:id/answer': sending(onThread(message)),
  'POST /api/v1/chat/:agent/messages/:id/dismiss': onThread(message),
  'POST /api/v1/chat/:agent/messages/:id/retry': onThread(message),
  'POST /api/v1/chat/:agent/messages/:id/send-anyway': onThread(message),
  'POST /api/v1/chat/:agent/read': onThread(field('agent')),
  'POST /api/v1/chat/uploads': { where: { in: 'query', key: 'agent' }, rename: null },
  'GET /api/v1/chat/open': { where: { in: 'query', key: 'agent' }, rename: messages },
  'POST /agents/:name/chat': chatTurn,
  'GET /agents/:name/sessions': sessionList,
};

/** The rule of a registered route, or null for one a hub always answers itself. */
export function ruleFor(method: string, url: string): ProxyRule | null {
  return RULES[`${method === 'HEAD' ? 'GET' : method} ${url}`] ?? null;
}

/** A request as the hub received it, before validation: what the rule reads to find the host. */
export interface Incoming {
  /** The route's pattern, e.g. `/api/v1/chat/:agent/messages`. */
  url: string;
  params: Record<string, string>;
  /** The query string as sent, without its `?`. */
  query: string;
  body: unknown;
}

export interface Forward {
  host: string;
  /** Path and query on the host: the agent's own name in place of its address, the host's name taken out. */
  path: string;
  /** The body to send, when the rule took the host out of it; otherwise the request's own. */
  body?: Record<string, unknown>;
}

/**
 * Where the request goes, or null when it is this hub's own (a bare name, no host named, or no address at all). A
 * send to a moved agent goes where `moved` says it went, its own agents' too (src/hosts/move/forwarding.ts).
 */
export function forwardOf(
  rule: ProxyRule,
  req: Incoming,
  moved: (address: ParsedAddress) => ParsedAddress | null = () => null,
): Forward | null {
  const { where } = rule;
  if (where.in === 'hub') return null;
  const query = new URLSearchParams(req.query);
  const params = { ...req.params };
  const body = req.body;
  let named: unknown;
  if (where.in === 'params') named = params[where.key];
  else if (where.in === 'query') named = query.get(where.key);
  else named = isObject(body) ? body[where.key] : undefined;
  if (typeof named !== 'string') return null;
  let host: string;
  if ('bare' in where) {
    // A malformed name goes on to the route's own validation, which says what is wrong with it.
    if (parseAddress(`x@${named}`)?.host !== named) return null;
    host = named;
    if (where.in === 'query') query.delete(where.key);
  } else {
    const parsed = parseAddress(named);
    const address = parsed && ((rule.follows && moved(parsed)) || parsed);
    if (!address?.host) return null;
    host = address.host;
    if (where.in === 'params') params[where.key] = address.name;
    else query.set(where.key, address.name);
  }
  const search = query.toString();
  const path =
    req.url.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(params[p] ?? '')) + (search ? `?${search}` : '');
  if (where.in !== 'body' || !isObject(body)) return { host, path };
  const { [where.key]: _host, ...rest } = body;
  return { host, path, body: rest };
}

/**
 * The host's answer as the hub gives it: renamed when it succeeded (its `data`, or all of a bare one), passed on as it
 * is otherwise.
 */
export function renamedAnswer(rule: ProxyRule, answer: unknown, host: string): unknown {
  if (!rule.rename || !isObject(answer)) return answer;
  if (rule.bare) return answer.ok === false ? answer : rule.rename(answer as never, host);
  if (answer.ok !== true || !('data' in answer)) return answer;
  return { ...answer, data: rule.rename(answer.data as never, host) };
}

/** An address on a host this hub does not follow: the same 404 as an agent it does not have. */
export const unknownHost = (host: string) =>
  notFound(`no host named "${host}" (the hosts this hub follows: \`leo host list\`)`);

/**
 * The host did not answer an action on one of its agents: 503, which the app's outbox takes as "offline, try again",
 * naming the host. (Pairing a host answers the same failure as 502: there the hub is a client of a host it is adding.)
 */
export const hostUnreachable = (host: string, why: string) =>
  new LeoError(503, `the host "${host}" did not answer: ${why}`, 'host_unreachable', { host });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
