// The access matrix (issue 9): every route the real daemon registers, against every kind of caller, on both
// listeners and behind the Host/Origin gate. The expectations below are written from docs/API.md by hand, not derived
// from the routes' own declarations, so a route that declares the wrong rule fails here; a route added without an
// entry fails too, and so does an entry whose route is gone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { EVENT_AUDIENCE, type EventType } from '../../src/wire/event-types.js';
import { IssuedToken } from '../../src/wire/tokens.js';
import type { RouteEntry } from '../../src/http/server.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request, type Target } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';
import { bounded, probe, type ProbeResult } from './probe.js';
import {
  PRINCIPALS,
  agentSessionVariable,
  issueTokens,
  joinAsPeer,
  type PrincipalName,
  type Tokens,
} from './principals.js';
import { publishRaw } from '../helpers/raw-publish.js';

type Holder = 'operator' | 'device' | 'fleet' | 'agent' | 'client' | 'poster' | 'peer';
/** Who a route admits on TCP: anyone, nobody (socket only), or the listed token holders. */
type Admits = 'public' | 'socket' | readonly Holder[];

const OPERATOR: Admits = ['operator'];
/** The owner's apps: push and config edits, which a peer hub does not manage (issue 31). */
const OPERATOR_DEVICE: Admits = ['operator', 'device', 'fleet'];
/**
 * Work on agents as their owner: a peer hub (issue 31) does what the operator does on agents, so wherever a device
 * works on them, a peer does too.
 */
const ON_AGENTS: Admits = [...OPERATOR_DEVICE, 'peer'];
/** The operator's own agent routes, which a peer hub relays for its owner. */
const OPERATOR_PEER: Admits = ['operator', 'peer'];
/** Fleet writes (issue 29): the spec's operator-only agent writes, the devices granted the fleet scope, peer hubs. */
const FLEET: Admits = ['operator', 'fleet', 'peer'];
/** Leo Web's device list: managing devices, which no peer does. */
const DEVICE_SCOPES: Admits = ['operator', 'fleet'];
const READERS: Admits = ['operator', 'device', 'fleet', 'client', 'poster', 'peer'];
const POSTERS: Admits = ['operator', 'device', 'fleet', 'poster', 'peer'];
const AGENT: Admits = ['agent'];

/** Keyed "METHOD url" as fastify registers it. HEAD twins of GET routes share their GET entry. */
const EXPECTED: Record<string, Admits> = {
  'GET /health': 'public',
  'GET /api/v1/version': [...READERS, 'agent'],
  'GET /api/v1/daemon': OPERATOR,
  'GET /metrics': OPERATOR,
  // The OpenAPI document (issue 19): for the owner's apps, like the fleet controls it describes.
  'GET /api/v1/openapi.json': OPERATOR_DEVICE,
  'GET /api/v1/events': READERS,
  'GET /events': 'socket',

  // Leo Web (issue 16): the app's files are public, behind the same Host/Origin gate as everything else.
  'GET /': 'public',
  'GET /assets/:file': 'public',
  'GET /manifest.webmanifest': 'public',
  'GET /icon.svg': 'public',
  'GET /icon-192.png': 'public',
  'GET /icon-512.png': 'public',
  // The push service worker (issue 17): a top-level file like the manifest.
  'GET /sw.js': 'public',

  'POST /api/v1/devices': OPERATOR,
  // Leo Web's device list (issue 29): the owner's phone lists the devices and grants or takes back the fleet scope.
  'GET /api/v1/devices': DEVICE_SCOPES,
  'PATCH /api/v1/devices/:id': DEVICE_SCOPES,
  'DELETE /api/v1/devices/:id': OPERATOR,
  'GET /api/v1/me': [...READERS, 'agent'],
  'POST /api/v1/devices/pairing-codes': OPERATOR,
  'POST /api/v1/pair': 'public',
  'POST /api/v1/clients': OPERATOR,
  'GET /api/v1/clients': OPERATOR,
  'DELETE /api/v1/clients/:id': OPERATOR,

  // Several machines (issue 31). As a host: who it is (any reader), invites (the operator), a hub's join (public:
  // the code authenticates it), the hubs that joined (the operator), a hub revoking its own token (that peer).
  'GET /api/v1/host': READERS,
  'POST /api/v1/host/invites': OPERATOR,
  'POST /api/v1/host/join': 'public',
  'DELETE /api/v1/host/peer': ['peer'],
  'GET /api/v1/peers': OPERATOR,
  'DELETE /api/v1/peers/:id': OPERATOR,
  // As a hub: the hosts it follows, the owner's: the operator, and Leo Web on a device with the fleet scope.
  'POST /api/v1/hosts': DEVICE_SCOPES,
  'GET /api/v1/hosts': DEVICE_SCOPES,
  'DELETE /api/v1/hosts/:name': DEVICE_SCOPES,
  // Moving and copying agents between the hub's machines (issue 32): the owner's, as the hosts it follows are.
  'POST /api/v1/agents/:name/move': DEVICE_SCOPES,
  'POST /api/v1/agents/:name/copy': DEVICE_SCOPES,
  'GET /api/v1/moves/:id': DEVICE_SCOPES,
  'GET /api/v1/moves': DEVICE_SCOPES,
  'POST /api/v1/moves/:id/retry': DEVICE_SCOPES,

  // A hub's side calls for a move or copy (issue 32): the hub's peer token, or the operator's on the hub itself.
  'POST /api/v1/moves/:id/park': OPERATOR_PEER,
  'POST /api/v1/moves/:id/resume': OPERATOR_PEER,
  'POST /api/v1/moves/:id/measure': OPERATOR_PEER,
  'POST /api/v1/moves/:id/pack': OPERATOR_PEER,
  'GET /api/v1/moves/:id/parts/*': OPERATOR_PEER,
  'POST /api/v1/moves/:id/mark': OPERATOR_PEER,
  'GET /api/v1/moves/:id/held': OPERATOR_PEER,
  'PUT /api/v1/moves/:id/parts/*': OPERATOR_PEER,
  'POST /api/v1/moves/:id/spawn': OPERATOR_PEER,
  'POST /api/v1/moves/:id/settle': OPERATOR_PEER,
  'POST /api/v1/moves/:id/discard': OPERATOR_PEER,

  'GET /api/v1/state': READERS,
  'GET /api/v1/agents': READERS,
  'GET /api/v1/agents/:name': READERS,
  // What an agent costs per day (issue 18): figures only, like /api/v1/state's usage sums.
  'GET /api/v1/agents/:name/usage': READERS,
  'GET /api/v1/environments': READERS,
  'GET /api/v1/templates': READERS,
  'POST /api/v1/agents/spawn': FLEET,
  'POST /api/v1/agents/:name/stop': FLEET,
  'POST /api/v1/agents/:name/start': FLEET,
  'POST /api/v1/agents/:name/restart': FLEET,
  'POST /api/v1/agents/:name/reset': FLEET,
  'DELETE /api/v1/agents/:name': FLEET,
  'POST /api/v1/agents/:name/rename': FLEET,
  'POST /api/v1/agents/:name/template': FLEET,
  'POST /api/v1/agents/:name/environments': FLEET,
  'PUT /api/v1/agents/:name/appearance': ON_AGENTS,
  // The live terminal (issue 17): the owner's only — a pane shows secrets, its keys steer the agent.
  'GET /api/v1/agents/:name/terminal': ON_AGENTS,
  'GET /api/v1/agents/:name/terminal/stream': ON_AGENTS,
  'POST /api/v1/agents/:name/terminal/keys': ON_AGENTS,
  'GET /api/v1/appearance/rules': OPERATOR_DEVICE,
  'PUT /api/v1/appearance/rules': OPERATOR_DEVICE,
  'POST /api/v1/agents/:name/message': OPERATOR_PEER,
  'POST /api/agent/:name/message': AGENT,
  'POST /hooks/:event': 'socket',

  // Tasks and review in Leo Web (issue 17): the owner's, as the fleet controls are; a log or a diff shows secrets.
  'POST /api/v1/tasks/:name/run': FLEET,
  'GET /api/v1/tasks': ON_AGENTS,
  'GET /api/v1/tasks/:name/runs/:id/log': ON_AGENTS,
  'GET /api/v1/agents/:name/changes': ON_AGENTS,
  'GET /api/v1/agents/:name/changes/diff': ON_AGENTS,
  // Acting on those changes (issue 33): fleet writes, like the agent controls.
  'POST /api/v1/agents/:name/changes/commit': FLEET,
  'POST /api/v1/agents/:name/changes/discard': FLEET,
  'POST /api/v1/agents/:name/changes/push': FLEET,
  'POST /api/v1/agents/:name/changes/pull-request': FLEET,
  'POST /observe/task-run': 'socket',
  'POST /chat/task-failure': 'socket',

  'GET /api/v1/chat/threads': ON_AGENTS,
  'GET /api/v1/chat/open': ON_AGENTS,
  'GET /api/v1/chat/:agent/messages': ON_AGENTS,
  'POST /api/v1/chat/:agent/messages': POSTERS,
  'POST /api/v1/chat/uploads': POSTERS,
  'GET /api/v1/chat/:agent/attachments/:id': ON_AGENTS,
  'POST /api/v1/chat/:agent/messages/:id/answer': ON_AGENTS,
  'POST /api/v1/chat/:agent/messages/:id/dismiss': ON_AGENTS,
  'POST /api/v1/chat/:agent/messages/:id/retry': ON_AGENTS,
  'POST /api/v1/chat/:agent/messages/:id/send-anyway': ON_AGENTS,
  'POST /api/v1/chat/:agent/read': ON_AGENTS,
  // Which thread is on screen, for push suppression: push is the owner's apps' (a hub sends its own pushes).
  'PUT /api/v1/chat/:agent/presence': OPERATOR_DEVICE,

  'GET /api/v1/push/vapid-public-key': OPERATOR_DEVICE,
  'POST /api/v1/push/subscriptions': OPERATOR_DEVICE,
  'GET /api/v1/push/subscriptions': OPERATOR_DEVICE,
  'DELETE /api/v1/push/subscriptions/:id': OPERATOR_DEVICE,
  'PUT /api/v1/push/subscriptions/:id/prefs': OPERATOR_DEVICE,
  'POST /api/v1/push/test': OPERATOR_DEVICE,
  'GET /api/v1/push/deliveries': OPERATOR_DEVICE,

  'POST /api/agent/:name/mcp': AGENT,
  'GET /api/agent/:name/mcp': AGENT,
  'DELETE /api/agent/:name/mcp': AGENT,
  'POST /api/agent/:name/chat/post': AGENT,
  'POST /api/agent/:name/chat/ask': AGENT,
  'POST /api/agent/:name/chat/ask/withdraw': AGENT,
  'POST /api/agent/:name/chat/history': AGENT,

  'POST /agents/:name/chat': OPERATOR_PEER,
  'GET /sessions/:id/messages': OPERATOR_PEER,
  'GET /sessions/:id/stream': OPERATOR_PEER,
  'POST /sessions/:id/cancel': OPERATOR_PEER,
  'PATCH /sessions/:id': OPERATOR_PEER,
  'GET /sessions/:id': OPERATOR_PEER,
  'DELETE /sessions/:id': OPERATOR_PEER,
  'GET /agents/:name/sessions': OPERATOR_PEER,
  'GET /sessions/:id/config': OPERATOR_PEER,
  'GET /ws': OPERATOR_PEER,
};

/**
 * Who receives each event type on the event stream (issue 20 item 2), written by hand from docs/SECURITY.md like
 * EXPECTED. Agents are refused the stream itself (above). A type the bus can publish without an entry here fails, as
 * does an entry for a type it cannot.
 */
type Reader = 'operator' | 'device' | 'fleet' | 'client' | 'poster' | 'peer' | 'socket';
const EVERY_READER: readonly Reader[] = ['operator', 'device', 'fleet', 'client', 'poster', 'peer', 'socket'];
/** A peer hub reads conversations: it carries them to its owner's apps (issue 31). */
const CHAT_READERS: readonly Reader[] = ['operator', 'device', 'fleet', 'peer', 'socket'];
const EXPECTED_EVENTS: Record<string, readonly Reader[]> = {
  agent_spawned: EVERY_READER,
  agent_stopped: EVERY_READER,
  agent_state_changed: EVERY_READER,
  agent_appearance_changed: EVERY_READER,
  agent_activity: EVERY_READER,
  agent_message: EVERY_READER,
  agent_usage: EVERY_READER,
  agent_turn_error: EVERY_READER,
  agent_needs_input: EVERY_READER,
  agent_changes: EVERY_READER,
  task_run_started: EVERY_READER,
  task_run_succeeded: EVERY_READER,
  task_run_failed: EVERY_READER,
  host_status: EVERY_READER,
  host_state: EVERY_READER,
  move_progress: EVERY_READER,
  'chat.message': CHAT_READERS,
  'chat.updated': CHAT_READERS,
  'chat.read': CHAT_READERS,
};

/**
 * How each token kind is revoked, and so which live streams revocation must end. The operator's and the agent's are
 * files: replacing one takes a daemon restart, which ends every stream anyway.
 */
const REVOKED_THROUGH: Record<Holder, string | null> = {
  operator: null,
  agent: null,
  device: '/api/v1/devices',
  fleet: '/api/v1/devices',
  client: '/api/v1/clients',
  poster: '/api/v1/clients',
  peer: '/api/v1/peers',
};

/** Path parameters name things that do not exist, so an admitted request is answered without changing anything. */
const PARAMS: Record<string, string> = { name: 'ghost', agent: 'ghost', id: 'nope', event: 'stop', file: 'nope.js' };
const ALLOWED_HOST = 'leo.example.ts.net';
/** web.max_connections_per_token here: low, so holding a token's share takes few streams. */
const PER_TOKEN = 8;

type Outcome = 'allowed' | 'unauthorized' | 'forbidden' | 'forbidden_host' | 'not_found';

/**
 * How the access layer answered. Its refusals carry their own codes (a handler's 404 for a missing agent carries
 * none), so anything else got past it; a 5xx is reported as such, since an admitted request must not crash. A HEAD
 * answer has no body to carry a code, so there the status alone tells, and 403 is read as the refusal expected.
 */
function outcome(r: ProbeResult, method: string, expected: Outcome): string {
  if (r.status >= 500) return `error ${r.status} ${r.error ?? ''}`;
  if (method === 'HEAD') {
    const refusal = { 401: 'unauthorized', 403: expected === 'forbidden_host' ? 'forbidden_host' : 'forbidden' }[
      r.status
    ];
    if (refusal) return refusal;
    return r.status === 404 && expected === 'not_found' ? 'not_found' : 'allowed';
  }
  if (r.status === 401 && r.code === 'unauthorized') return 'unauthorized';
  if (r.status === 403 && (r.code === 'forbidden' || r.code === 'forbidden_host')) return r.code;
  if (r.status === 404 && r.code === 'not_found' && r.error?.startsWith('no route ')) return 'not_found';
  return 'allowed';
}

function expectedOnTcp(admits: Admits, who: PrincipalName): Outcome {
  if (admits === 'socket') return 'not_found';
  if (admits === 'public') return 'allowed';
  if (who === 'none' || who === 'bad' || who === 'revoked') return 'unauthorized';
  return admits.includes(who) ? 'allowed' : 'forbidden';
}

const keyOf = (r: Pick<RouteEntry, 'method' | 'url'>) => `${r.method} ${r.url}`;

/** The entry for a route; a HEAD route without its own falls back to its GET twin's. */
function entryFor(route: RouteEntry): Admits | undefined {
  return EXPECTED[keyOf(route)] ?? (route.method === 'HEAD' ? EXPECTED[`GET ${route.url}`] : undefined);
}

interface Case {
  name: string;
  target: 'tcp' | 'socket';
  token?: PrincipalName;
  headers?: Record<string, string>;
  expect(admits: Admits): Outcome;
}

describe('access matrix: every registered route × every caller × both listeners', () => {
  let t: TestDaemon;
  let tokens: Tokens;
  /** A peer's own revocation, when admitted, spends the token: that route gets a peer token of its own. */
  let spentPeer: string;
  let routes: readonly RouteEntry[];

  before(async () => {
    t = await startTestDaemon({
      config: 'templates:\n  cat: { harness: shell, command: "exec cat" }\n',
      web: `  allowed_hosts: [${ALLOWED_HOST}]\n  max_connections_per_token: ${PER_TOKEN}\n`,
    });
    for (const name of ['den', 'ivy']) {
      const spawned = await probe(t.tcp, 'POST', '/api/v1/agents/spawn', {
        token: t.daemon.operatorToken,
        body: { template: 'cat', name },
      });
      assert.equal(spawned.status, 201, spawned.text);
    }
    tokens = await issueTokens(t.tcp, t.daemon.paths, 'den');
    spentPeer = await joinAsPeer(t.tcp, t.daemon.paths, 'spent hub');
    routes = t.daemon.routes;
  });
  after(() => t.stop());

  it('every agent is started with the same agent token: one per daemon, not one per agent', () => {
    assert.match(tokens.agent, /^leo_ag_/);
    assert.equal(agentSessionVariable(t.daemon.paths, 'ivy', 'LEO_AGENT_TOKEN'), tokens.agent);
    assert.equal(fs.readFileSync(t.daemon.paths.agentTokenFile, 'utf8').trim(), tokens.agent);
  });

  it('every registered route has an expectation, and every expectation names a registered route', () => {
    assert.ok(routes.length > 50, `only ${routes.length} routes registered`);
    const registered = new Set(routes.map(keyOf));
    assert.deepEqual(
      routes.filter((r) => entryFor(r) === undefined).map(keyOf),
      [],
      'routes without an entry in EXPECTED',
    );
    assert.deepEqual(
      Object.keys(EXPECTED).filter((k) => !registered.has(k)),
      [],
      'entries in EXPECTED for routes that are not registered',
    );
    // A HEAD twin answers with its GET route's rule: the fallback above is only sound if the declarations agree.
    for (const head of routes.filter((r) => r.method === 'HEAD' && !EXPECTED[keyOf(r)])) {
      const get = routes.find((r) => r.method === 'GET' && r.url === head.url);
      assert.deepEqual(head.access, get?.access, keyOf(head));
    }
  });

  it('each route answers each caller as the table says, on TCP and on the socket, behind the Host/Origin gate', async () => {
    const port = t.daemon.port;
    const cases: Case[] = [
      ...PRINCIPALS.map((who): Case => ({
        name: `tcp ${who}`,
        target: 'tcp',
        token: who,
        expect: (a) => expectedOnTcp(a, who),
      })),
      {
        name: 'tcp operator via a configured host name, from a loopback page',
        target: 'tcp',
        token: 'operator',
        headers: { host: `${ALLOWED_HOST}:${port}`, origin: 'http://localhost:3000' },
        expect: (a) => expectedOnTcp(a, 'operator'),
      },
      {
        name: 'tcp operator, foreign Host (DNS rebinding)',
        target: 'tcp',
        token: 'operator',
        headers: { host: `evil.example:${port}` },
        expect: () => 'forbidden_host',
      },
      {
        name: 'tcp operator, foreign Origin (a browser page elsewhere)',
        target: 'tcp',
        token: 'operator',
        headers: { origin: 'https://evil.example' },
        expect: () => 'forbidden_host',
      },
      {
        name: 'tcp no token, foreign Host',
        target: 'tcp',
        headers: { host: '127.0.0.1.nip.io' },
        expect: () => 'forbidden_host',
      },
      { name: 'socket, no token', target: 'socket', expect: () => 'allowed' },
      { name: 'socket, bad token', target: 'socket', token: 'bad', expect: () => 'allowed' },
      {
        name: 'socket, foreign Host and Origin (no browser reaches a unix socket)',
        target: 'socket',
        headers: { host: 'evil.example', origin: 'https://evil.example' },
        expect: () => 'allowed',
      },
    ];

    const jobs = routes.flatMap((route) =>
      cases.map((c) => async () => {
        const admits = entryFor(route)!;
        const target: Target = c.target === 'tcp' ? t.tcp : t.socket;
        const path = route.url.replace(/:(\w+)/g, (_, p: string) => PARAMS[p] ?? 'x');
        const selfRevoking = keyOf(route) === 'DELETE /api/v1/host/peer' && c.token === 'peer';
        const token = c.token && c.token !== 'none' ? (selfRevoking ? spentPeer : tokens[c.token]) : undefined;
        const upgrade = route.websocket === true && route.method === 'GET';
        const want = c.expect(admits);
        let r: ProbeResult;
        try {
          r = await probe(target, route.method, path, {
            ...(token ? { token } : {}),
            ...(c.headers ? { headers: c.headers } : {}),
            ...(['POST', 'PUT', 'PATCH'].includes(route.method) ? { body: {} } : {}),
            upgrade,
            timeoutMs: 3000,
          });
        } catch (err) {
          return `${keyOf(route)} [${c.name}]: expected ${want}, got ${(err as Error).message}`;
        }
        // Only the TCP server takes upgrades: an admitted WebSocket there must really be switched.
        const seen = outcome(r, route.method, want);
        const got = upgrade && c.target === 'tcp' && seen === 'allowed' && r.status !== 101 ? 'not upgraded' : seen;
        return got === want ? null : `${keyOf(route)} [${c.name}]: expected ${want}, got ${got} (${r.status})`;
      }),
    );
    const mismatches = (await bounded(16, jobs)).filter((m) => m !== null);
    assert.deepEqual(mismatches, []);
  });

  it('every event type the bus can publish has an entry in EXPECTED_EVENTS, and no entry names another', () => {
    assert.deepEqual(Object.keys(EXPECTED_EVENTS).sort(), Object.keys(EVENT_AUDIENCE).sort());
  });

  it('each reader’s stream carries exactly the event types EXPECTED_EVENTS gives it', async () => {
    const streams: Record<Reader, SseClient> = {
      operator: await SseClient.open(t.tcp, '/api/v1/events', tokens.operator),
      device: await SseClient.open(t.tcp, '/api/v1/events', tokens.device),
      fleet: await SseClient.open(t.tcp, '/api/v1/events', tokens.fleet),
      client: await SseClient.open(t.tcp, '/api/v1/events', tokens.client),
      poster: await SseClient.open(t.tcp, '/api/v1/events', tokens.poster),
      peer: await SseClient.open(t.tcp, '/api/v1/events', tokens.peer),
      socket: await SseClient.open(t.socket, '/events'),
    };
    try {
      for (const s of Object.values(streams)) await s.waitFor(1);
      const marker = `matrix-${Date.now()}`;
      for (const type of Object.keys(EVENT_AUDIENCE) as EventType[]) publishRaw(t.daemon.bus, type, { marker });
      // Every reader gets agent_stopped: published last, it marks the end of the batch on every stream.
      publishRaw(t.daemon.bus, 'agent_stopped', { marker, last: true });
      const mismatches: string[] = [];
      for (const who of EVERY_READER) {
        const s = streams[who];
        await until(`${who}'s batch`, () => s.events.some((e) => e.data.last === true), 5000, 10);
        const got = s.events.filter((e) => e.data.marker === marker && e.data.last !== true).map((e) => e.event);
        const want = Object.keys(EXPECTED_EVENTS).filter((type) => EXPECTED_EVENTS[type]!.includes(who));
        if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${who}: got ${got}, expected ${want}`);
      }
      assert.deepEqual(mismatches, []);
    } finally {
      for (const s of Object.values(streams)) s.close();
    }
  });

  it('each token holds at most its share of TCP connections (issue 28); the socket is not counted', async () => {
    for (const who of READERS as (keyof Tokens)[]) {
      const held = [];
      try {
        for (let i = 0; i < PER_TOKEN; i++) held.push(await SseClient.open(t.tcp, '/api/v1/events', tokens[who]));
        assert.deepEqual(
          held.map((s) => s.status),
          Array(PER_TOKEN).fill(200),
          who,
        );
        const beyond = await request(t.tcp, 'GET', '/api/v1/state', { token: tokens[who] });
        assert.equal(beyond.status, 429, `${who}: ${beyond.text}`);
        assert.equal(beyond.json.code, 'too_many_connections', who);
        const others: (keyof Tokens)[] = (READERS as (keyof Tokens)[]).filter((o) => o !== who);
        for (const o of others) {
          const answer = await request(t.tcp, 'GET', '/api/v1/state', { token: tokens[o] });
          assert.equal(answer.status, 200, o);
        }
      } finally {
        for (const s of held) s.close();
      }
    }
    const local = await Promise.all(
      Array.from({ length: PER_TOKEN + 1 }, () => SseClient.open(t.socket, '/api/v1/events')),
    );
    try {
      assert.deepEqual(
        local.map((s) => s.status),
        Array(PER_TOKEN + 1).fill(200),
      );
    } finally {
      for (const s of local) s.close();
    }
  });

  it('revoking a token ends the event streams it holds within a second, and only those', async () => {
    const operator = tokens.operator;
    const revocable = (Object.keys(REVOKED_THROUGH) as Holder[]).filter((h) => REVOKED_THROUGH[h]);
    assert.deepEqual(revocable, ['device', 'fleet', 'client', 'poster', 'peer']);
    // A peer token comes from a host's join code, the others from their operator route.
    const issueToRevoke = async (holder: Holder, route: string): Promise<{ id: string; token: string }> => {
      if (holder === 'peer') {
        const token = await joinAsPeer(t.tcp, t.daemon.paths, 'revoked peer');
        return { id: t.daemon.tokens.find(token)!.id, token };
      }
      const issued = await request(t.tcp, 'POST', route, {
        token: operator,
        body: {
          name: `revoked ${holder}`,
          ...(holder === 'poster' ? { can_post: true } : {}),
          ...(holder === 'fleet' ? { fleet: true } : {}),
        },
      });
      assert.equal(issued.status, 201, issued.text);
      return IssuedToken.parse(issued.json.data);
    };
    const bystander = await SseClient.open(t.tcp, '/api/v1/events', operator);
    await bystander.waitFor(1);
    for (const holder of revocable) {
      const route = REVOKED_THROUGH[holder]!;
      const { id, token } = await issueToRevoke(holder, route);
      const stream = await SseClient.open(t.tcp, '/api/v1/events', token);
      await stream.waitFor(1);
      const at = Date.now();
      assert.equal((await request(t.tcp, 'DELETE', `${route}/${id}`, { token: operator })).status, 200);
      await until(`${holder}'s stream to end`, () => stream.ended, 1000, 10);
      assert.ok(Date.now() - at < 1000, `${holder}: ended ${Date.now() - at} ms after revocation`);
    }
    assert.equal(bystander.ended, false, 'the operator’s stream is untouched');
    bystander.close();
  });
});
