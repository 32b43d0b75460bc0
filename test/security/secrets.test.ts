// Secrets never leak (issue 9): token values and environment values never appear in a response, an SSE or WebSocket
// event, a push payload or a log line, through a session of real activity with the log at trace level; token files
// and the socket are private, and device/client tokens are stored only as SHA-256 hashes.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { DestinationStream } from 'pino';
import WebSocket from 'ws';
import { systemClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { killTmuxServer } from '../helpers/daemon.js';
import { request, type Target } from '../helpers/http.js';
import { OpenAiServer } from '../helpers/openai-server.js';
import { SseClient } from '../helpers/sse-client.js';
import { makeTempHome } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';
import { bounded, probe } from './probe.js';
import { PRINCIPALS, agentSessionVariable, issueTokens, type Tokens } from './principals.js';
import { openSqlite } from '../../src/store/sqlite.js';

const secret = (label: string) => `${label}-${randomBytes(16).toString('hex')}`;

/** A local push relay: records what Leo sends it, which is what would reach a phone. */
async function webhookReceiver() {
  const bodies: { path: string; signature: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      bodies.push({
        path: req.url ?? '',
        signature: String(req.headers['x-leo-signature'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    bodies,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * Puts a `tmux` first on PATH that notes its command line and execs the real one: Leo's tmux calls still run for
 * real, and the test sees what `ps` would show any local user while each one runs.
 */
function spyOnTmuxArgv(): { lines(): string[]; restore(): void } {
  const real = spawnSync('sh', ['-c', 'command -v tmux'], { encoding: 'utf8' }).stdout.trim();
  assert.ok(real, 'tmux is on PATH');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tmux-spy-'));
  const log = path.join(dir, 'argv.log');
  fs.writeFileSync(path.join(dir, 'tmux'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`, {
    mode: 0o755,
  });
  const before = process.env.PATH;
  process.env.PATH = `${dir}:${before}`;
  return {
    lines: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean) : []),
    restore() {
      process.env.PATH = before;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Every regular file under `dir`, recursively (sockets and folders skipped). */
function regularFiles(dir: string): string[] {
  return fs
    .readdirSync(dir, { recursive: true })
    .map((f) => path.join(dir, String(f)))
    .filter((f) => fs.lstatSync(f).isFile());
}

const mode = (p: string) => fs.statSync(p).mode & 0o777;

describe('secrets never leak: responses, events, pushes, logs, files', () => {
  const env = {
    named: secret('envsecret'),
    template: secret('tplsecret'),
    spawn: secret('spawnsecret'),
    apiKey: secret('sk-live'),
  };
  const webhook = { secret: secret('whsecret'), pathPart: secret('whpath') };
  const logLines: string[] = [];
  const seen: { source: string; text: string }[] = [];
  let home: { home: string; env: NodeJS.ProcessEnv; cleanup(): void };
  let daemon: Daemon;
  let tcp: Target;
  let socket: Target;
  let tokens: Tokens;
  let llm: OpenAiServer;
  let relay: Awaited<ReturnType<typeof webhookReceiver>>;
  let tmuxArgv: ReturnType<typeof spyOnTmuxArgv>;
  let sessionId = '';
  let attachmentId = '';

  /** Every response the activity gets is kept for the leak check; so is every event and push. */
  const call = async (target: Target, method: string, p: string, opts: Parameters<typeof request>[3] = {}) => {
    const r = await request(target, method, p, opts);
    seen.push({ source: `${method} ${p} (activity)`, text: r.text });
    return r;
  };

  before(async () => {
    tmuxArgv = spyOnTmuxArgv();
    llm = await OpenAiServer.start({ defaultReply: { text: 'Hello from the model.' } });
    relay = await webhookReceiver();
    home = makeTempHome();
    const taskWorkspace = path.join(home.home, 'task-ws');
    fs.mkdirSync(taskWorkspace);
    fs.writeFileSync(
      path.join(home.home, 'leo.yaml'),
      `web:
  listen: 127.0.0.1:0
log:
  level: trace
pool:
  threads: 1
chat:
  # The test's webhook receiver listens on loopback.
  webhook_allowed_hosts: [127.0.0.1]
environments:
  acct: { SECRET_A: "${env.named}" }
  keys: { OPENAI_KEY: "${env.apiKey}" }
templates:
  worker: { harness: shell, command: "exec cat", environments: [acct], env: { TEMPLATE_SECRET: "${env.template}" } }
  bot:
    harness: shell
    command: "exec cat"
    environments: [keys]
    chat: { enabled: true, engine: openai, base_url: "${llm.baseUrl}", api_key_env: OPENAI_KEY, model: gpt-test }
tasks:
  nightly:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(taskWorkspace)}
    command: '[ -n "$SECRET_A" ] || exit 9'
    prompt: check the account
    environments: [acct]
    owner: den
`,
    );
    // leo.yaml holds the environments' values; the owner keeps it private and Leo's own rewrites must keep it so.
    fs.chmodSync(path.join(home.home, 'leo.yaml'), 0o600);
    const destination: DestinationStream = { write: (line: string) => void logLines.push(line) };
    daemon = await startDaemon({ env: home.env, clock: systemClock, logger: createLogger('trace', destination) });
    tcp = { port: daemon.port };
    socket = { socketPath: daemon.paths.socketFile };
    const op = daemon.operatorToken;

    const streams = [await SseClient.open(tcp, '/api/v1/events', op), await SseClient.open(socket, '/events')];
    const spawned = await call(tcp, 'POST', '/api/v1/agents/spawn', {
      token: op,
      body: { template: 'worker', name: 'den', env: { SPAWN_SECRET: env.spawn } },
    });
    assert.equal(spawned.status, 201, spawned.text);
    assert.equal(
      (await call(tcp, 'POST', '/api/v1/agents/spawn', { token: op, body: { template: 'bot' } })).status,
      201,
    );
    // The secrets really are in play: the agent was started with every one of them.
    assert.equal(agentSessionVariable(daemon.paths, 'den', 'SECRET_A'), env.named);
    assert.equal(agentSessionVariable(daemon.paths, 'den', 'TEMPLATE_SECRET'), env.template);
    assert.equal(agentSessionVariable(daemon.paths, 'den', 'SPAWN_SECRET'), env.spawn);
    tokens = await issueTokens(tcp, daemon.paths, 'den');
    streams.push(
      await SseClient.open(tcp, '/api/v1/events', tokens.device),
      await SseClient.open(tcp, '/api/v1/events', tokens.client),
    );

    // Hostile spawns whose refusals must not echo the values they were given.
    for (const bad of [{ 'BAD-NAME': env.spawn }, { LONG: env.spawn + 'x'.repeat(33_000) }])
      assert.equal(
        (await call(tcp, 'POST', '/api/v1/agents/spawn', { token: op, body: { template: 'worker', env: bad } })).status,
        400,
      );
    assert.equal((await call(tcp, 'GET', '/api/v1/version', { token: tokens.bad })).status, 401);
    assert.equal((await call(tcp, 'GET', '/api/v1/version', { token: tokens.revoked })).status, 401);

    const sub = await call(tcp, 'POST', '/api/v1/push/subscriptions', {
      token: tokens.device,
      body: {
        provider: 'webhook',
        url: `http://127.0.0.1:${relay.port}/hook/${webhook.pathPart}`,
        secret: webhook.secret,
      },
    });
    assert.equal(sub.status, 201, sub.text);

    const upload = await call(tcp, 'POST', '/api/v1/chat/uploads?filename=notes.txt&agent=den', {
      token: op,
      rawBody: 'the notes',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(upload.status, 201, upload.text);
    attachmentId = upload.json.data.id;
    for (const [token, body] of [
      [op, { text: 'hello den', attachments: [attachmentId] }],
      [tokens.device, { text: 'from the phone' }],
      [tokens.poster, { text: 'from a bot' }],
    ] as const)
      assert.equal((await call(tcp, 'POST', '/api/v1/chat/den/messages', { token, body })).status, 201);
    const agent = (p: string, body: unknown) => call(tcp, 'POST', p, { token: tokens.agent, body });
    assert.equal((await agent('/api/agent/den/message', { to: 'bot', text: 'hi bot' })).status, 200);
    assert.equal((await agent('/api/agent/den/chat/post', { text: 'status: all good' })).status, 200);
    const asked = agent('/api/agent/den/chat/ask', {
      question: 'Deploy now?',
      options: [
        { value: 'yes', label: 'Yes' },
        { value: 'no', label: 'No' },
      ],
    });
    const ask = await until(
      'the ask in the thread',
      async () =>
        (await call(tcp, 'GET', '/api/v1/chat/den/messages', { token: op })).json.data.messages.find(
          (m: { kind: string; state: string }) => m.kind === 'ask' && m.state === 'open',
        ),
      5000,
    );
    const answered = await call(tcp, 'POST', `/api/v1/chat/den/messages/${ask.id}/answer`, {
      token: tokens.device,
      body: { values: ['yes'] },
    });
    assert.equal(answered.status, 200, answered.text);
    assert.equal((await asked).status, 200);
    assert.equal((await agent('/api/agent/den/chat/history', {})).status, 200);
    const mcp = await call(tcp, 'POST', '/api/agent/den/mcp', {
      token: tokens.agent,
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });
    assert.equal(mcp.status, 200, mcp.text);
    assert.equal(
      (await call(tcp, 'POST', '/api/v1/agents/den/message', { token: op, body: { text: 'ping' } })).status,
      200,
    );
    assert.equal(
      (await call(socket, 'POST', '/hooks/session-start', { body: { agent: 'den', payload: { session_id: 's-1' } } }))
        .status,
      200,
    );

    // The agent chat endpoint spends the API key from the agent's environment; /ws and the session stream watch.
    const ws = new WebSocket(`ws://127.0.0.1:${daemon.port}/ws`, { headers: { authorization: `Bearer ${op}` } });
    const wsFrames: string[] = [];
    ws.on('message', (d) => wsFrames.push(String(d)));
    await new Promise((r, j) => ws.once('open', r).once('error', j));
    const turn = await call(tcp, 'POST', '/agents/bot/chat', { token: op, body: { message: 'hello' } });
    assert.equal(turn.status, 200, turn.text);
    sessionId = turn.json.sessionId;
    assert.equal(llm.completionRequests().at(-1)!.headers.authorization, `Bearer ${env.apiKey}`);
    const sessionStream = await SseClient.open(tcp, `/sessions/${sessionId}/stream`, op);
    assert.equal(
      (await call(tcp, 'POST', '/agents/bot/chat', { token: op, body: { message: 'again', sessionId } })).status,
      200,
    );
    await sessionStream.waitUntil(() => sessionStream.events.some((e) => e.event === 'done'));
    await until('the turns on /ws', () => wsFrames.length > 0, 5000);
    streams.push(sessionStream);

    // Lifecycle: a restart and an environment switch relaunch den with its env; a task run gets its own.
    assert.equal((await call(tcp, 'POST', '/api/v1/agents/den/restart', { token: op })).status, 200);
    assert.equal(
      (await call(tcp, 'POST', '/api/v1/agents/den/environments', { token: op, body: { environments: ['acct'] } }))
        .status,
      200,
    );
    assert.equal((await call(tcp, 'POST', '/api/v1/tasks/nightly/run', { token: op })).status, 202);
    const rules = [{ match: { name: 'd*' }, emoji: '🦊' }];
    assert.equal(
      (await call(tcp, 'PUT', '/api/v1/appearance/rules', { token: tokens.device, body: rules })).status,
      200,
    );
    await streams[0]!.waitUntil(
      () => streams[0]!.events.some((e) => e.event === 'task_run_succeeded' && e.data.run.task === 'nightly'),
      10_000,
    );
    await until('a push at the relay', () => relay.bodies.length > 0, 10_000);
    // The sweeper publishes what the panes show. den was just relaunched, and a sweep only reports a pane that moved
    // since its baseline: type a line every few seconds until one lands between sweeps (slow on a loaded machine).
    const activity = () => streams[0]!.events.some((e) => e.event === 'agent_activity');
    for (let i = 0; i < 10 && !activity(); i++) {
      const typed = await call(tcp, 'POST', '/api/v1/chat/den/messages', { token: op, body: { text: `line ${i}` } });
      assert.equal(typed.status, 201);
      await until('an activity event', activity, 3_000).catch(() => undefined);
    }
    assert.ok(activity(), 'no agent_activity event in 30 s of typing into den');

    ws.close();
    for (const s of streams) {
      s.close();
      seen.push({ source: `SSE ${s === streams[1] ? 'socket /events' : 'tcp'}`, text: JSON.stringify(s.events) });
    }
    seen.push({ source: 'WebSocket /ws', text: wsFrames.join('\n') });
    for (const b of relay.bodies) seen.push({ source: `push to ${b.path.slice(0, 6)}…`, text: b.body + b.signature });
  });

  after(async () => {
    await daemon?.close();
    killTmuxServer(home.home);
    home.cleanup();
    await llm?.close();
    await relay?.close();
    tmuxArgv?.restore();
  });

  const secrets = () => ({
    ...Object.fromEntries(Object.entries(tokens).map(([k, v]) => [`${k} token`, v])),
    'named environment value': env.named,
    'template env value': env.template,
    'spawn env value': env.spawn,
    'API key from an environment': env.apiKey,
    'webhook secret': webhook.secret,
    'webhook URL': webhook.pathPart,
  });
  const leaks = (sources: { source: string; text: string }[]) =>
    Object.entries(secrets()).flatMap(([name, value]) =>
      sources.filter((s) => s.text.includes(value)).map((s) => `${name} in ${s.source}`),
    );

  it('no response to any GET route, for any caller on either listener, and no event or push carries a secret', async () => {
    const fill = (url: string) =>
      url
        .replace(/:(name|agent)\b/g, 'den')
        .replace(':event', 'stop')
        .replace(':id', url.startsWith('/sessions/') ? sessionId : attachmentId);
    const reads = daemon.routes.filter((r) => (r.method === 'GET' || r.method === 'HEAD') && !r.websocket);
    const callers = [
      ...PRINCIPALS.map((who) => ({ who, target: tcp, token: who === 'none' ? undefined : tokens[who] })),
      { who: 'socket', target: socket, token: undefined },
    ];
    const answers = await bounded(
      8,
      reads.flatMap((r) =>
        callers.map((c) => async () => {
          const res = await probe(c.target, r.method, fill(r.url), c.token ? { token: c.token } : {});
          return { source: `${r.method} ${fill(r.url)} as ${c.who}`, text: res.text, status: res.status };
        }),
      ),
    );
    // The walk saw real data, not a wall of refusals: the operator read den's thread and the snapshot.
    const okAs = (source: string) => answers.find((a) => a.source === source)?.status;
    assert.equal(okAs('GET /api/v1/chat/den/messages as operator'), 200);
    assert.equal(okAs(`GET /sessions/${sessionId}/messages as operator`), 200);
    assert.equal(okAs('GET /api/v1/push/subscriptions as device'), 200);
    assert.ok(answers.find((a) => a.source === 'GET /api/v1/state as socket')?.text.includes('"den"'));
    assert.ok(seen.length > 20 && relay.bodies.length > 0);
    assert.deepEqual(leaks([...answers, ...seen]), []);
  });

  it('no tmux command line (which `ps` shows every local user) carries the agent token or an environment value', () => {
    const lines = tmuxArgv.lines();
    // Every tmux process went through the spy: the sweeps' and the daemon's control client, over whose stdin the
    // starts of both agents and den's two relaunches travelled.
    assert.ok(lines.filter((l) => l.includes('list-sessions')).length > 0, lines.join('\n'));
    assert.ok(lines.filter((l) => / -C new-session -A -s _leo-control /.test(l)).length > 0, lines.join('\n'));
    const watched = {
      'agent token': tokens.agent,
      'named environment value': env.named,
      'template env value': env.template,
      'spawn env value': env.spawn,
      'API key from an environment': env.apiKey,
    };
    assert.deepEqual(
      Object.entries(watched).flatMap(([name, value]) =>
        lines.filter((l) => l.includes(value)).map((l) => `${name} in: tmux ${l.slice(0, 200)}`),
      ),
      [],
    );
  });

  it('token files, the socket and their folder are private; device and client tokens are stored as SHA-256 only', () => {
    const p = daemon.paths;
    assert.equal(mode(p.stateDir), 0o700);
    for (const f of [p.operatorTokenFile, p.agentTokenFile, p.socketFile, p.database]) assert.equal(mode(f), 0o600, f);
    assert.equal(fs.statSync(p.socketFile).isSocket(), true);
    // Leo's tmux server socket: whoever reaches it can type into every agent and read their environments.
    const tmuxSocket = path.join(p.stateDir, 'tmux.sock');
    assert.equal(fs.statSync(tmuxSocket).isSocket(), true);
    assert.equal(mode(tmuxSocket) & 0o077, 0, 'no group or other access to the tmux socket');
    assert.equal(mode(path.join(p.stateDir, 'vapid.json')), 0o600);
    // The appearance-rules PUT rewrote leo.yaml (through a temp file and a rename) without widening its mode.
    assert.match(fs.readFileSync(p.configFile, 'utf8'), /appearance_rules/);
    assert.equal(mode(p.configFile), 0o600);
    for (const dir of fs.readdirSync(path.join(p.stateDir, 'agents')))
      assert.equal(mode(path.join(p.stateDir, 'agents', dir)), 0o700, dir);

    const db = openSqlite(p.database, { readonly: true });
    try {
      const rows = db.prepare('SELECT kind, name, hash FROM tokens').all() as {
        kind: string;
        name: string;
        hash: string;
      }[];
      const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');
      const byName = new Map(rows.map((r) => [r.name, r]));
      for (const [name, token] of [
        ['phone', tokens.device],
        ['dashboard', tokens.client],
        ['poster', tokens.poster],
      ] as const) {
        assert.match(byName.get(name)?.hash ?? '', /^[0-9a-f]{64}$/, name);
        assert.equal(byName.get(name)!.hash, sha256(token), name);
      }
      assert.equal(byName.has('lost phone'), false, 'a revoked token leaves no row');
      const tables = (
        db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[]
      ).map((t) => t.name);
      const dump = tables.map((t) => ({
        source: `table ${t}`,
        text: JSON.stringify(db.prepare(`SELECT * FROM "${t}"`).all()),
      }));
      assert.ok(tables.includes('tokens') && tables.includes('messages'), tables.join());
      const tokenValues = Object.entries(tokens);
      assert.deepEqual(
        tokenValues.flatMap(([k, v]) => dump.filter((d) => d.text.includes(v)).map((d) => `${k} token in ${d.source}`)),
        [],
      );
    } finally {
      db.close();
    }
    // Byte for byte, WAL included: the operator and agent tokens live in their files and nowhere else under LEO_HOME.
    const files = regularFiles(daemon.paths.home).map((f) => ({ file: f, bytes: fs.readFileSync(f) }));
    const holders = (value: string) => files.filter((f) => f.bytes.includes(value)).map((f) => f.file);
    assert.deepEqual(holders(tokens.operator), [p.operatorTokenFile]);
    assert.deepEqual(holders(tokens.agent), [p.agentTokenFile]);
    for (const k of ['device', 'client', 'poster', 'revoked'] as const) assert.deepEqual(holders(tokens[k]), [], k);
  });

  it('no log line, at trace level through all of it, carries a secret', async () => {
    await daemon.close();
    const log = logLines.join('');
    // The log really was at trace level and saw the activity: request lines, deliveries, the task run.
    assert.ok(logLines.length > 100, `${logLines.length} log lines`);
    for (const marker of ['incoming request', 'request completed', 'chat message delivered', 'leo daemon stopped'])
      assert.ok(log.includes(marker), marker);
    assert.deepEqual(leaks(logLines.map((text, i) => ({ source: `log line ${i}: ${text.slice(0, 120)}`, text }))), []);
  });

  it('the logger blanks every path it promises to, wherever a secret would be attached', () => {
    const lines: string[] = [];
    const log = createLogger('trace', { write: (l: string) => void lines.push(l) });
    const value = secret('redactme');
    log.info({ req: { headers: { authorization: `Bearer ${value}` } } }, 'a');
    log.info({ headers: { authorization: value } }, 'b');
    log.info({ authorization: value, token: value }, 'c');
    log.info({ record: { token: value, env: { K: value } } }, 'd');
    log.info({ env: { K: value } }, 'e');
    assert.equal(lines.length, 5);
    for (const line of lines) {
      assert.equal(line.includes(value), false, line);
      assert.ok(line.includes('[redacted]'), line);
    }
  });
});
