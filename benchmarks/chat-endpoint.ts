/**
 * What Leo's agent chat endpoint (`POST /agents/:name/chat`) adds on top of the model it fronts: the real daemon runs
 * in-process on the real clock with a chat-enabled agent whose openai engine talks to the scripted OpenAI-compatible
 * server, and each scripted reply is fetched twice with the same client code, through Leo and straight from the
 * scripted server's `/v1/chat/completions` stream. Prints per-turn latency (JSON mode), time to the first streamed
 * chunk and the gaps between chunks (SSE mode), and streaming throughput; asserts nothing.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/chat-endpoint.js [--turns 200] [--chunks 20]
 *     [--throughput-chunks 20000]
 *
 * Everything (client, daemon, scripted server) shares one process and one event loop, so Leo's CPU work per turn
 * shows up in full in the through-Leo times, and the direct leg measures only the scripted server and the client.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { systemClock } from '../src/core/clock.js';
import { killTmuxServer, startTestDaemon, type TestDaemon } from '../test/helpers/daemon.js';
import { request } from '../test/helpers/http.js';
import { OpenAiServer, lastUserText, type ScriptedReply } from '../test/helpers/openai-server.js';
import { int, options } from './lib/options.js';
import { fmt, quantile, runGuarded, table } from './lib/report.js';

/** Hard stop, whatever the machine: the default run takes about a minute on two cores. */
const BUDGET_MS = 115_000;
/** Where the turn loops stop early, so the throughput legs still fit under the hard stop. */
const JSON_DEADLINE_MS = 35_000;
const SSE_DEADLINE_MS = 90_000;
/** Unmeasured turns per kind first: JIT, the connection pools, SQLite's page cache. */
const WARMUP_TURNS = 20;
const CHUNK_DELAY_MS = 5;
const API_KEY = 'sk-bench-123';
const MODEL = 'gpt-bench';

const {
  turns,
  chunks,
  'throughput-chunks': throughputChunks,
} = options({ turns: int(200), chunks: int(20), 'throughput-chunks': int(20_000) });

/** `n` four-character tokens: the scripted server cuts a text of 4n characters into exactly n deltas of 4. */
const tokens = (n: number) => 'tok '.repeat(n);
const REPLIES: Record<string, ScriptedReply> = {
  'json turn': { text: 'Hello there, friend.' },
  'sse turn': { text: tokens(chunks), chunks, chunkDelayMs: CHUNK_DELAY_MS },
  'sse throughput': { text: tokens(throughputChunks), chunks: throughputChunks },
};

let llm: OpenAiServer | undefined;
let daemon: TestDaemon | undefined;
// One connection per target, reused, as Leo's engine reuses its own to the provider: no leg pays for TCP setup.
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

let cleaned = false;
/** Synchronous, so it also runs from the exit handler: whatever the async stop did not get to. */
function cleanupSync(): void {
  if (cleaned) return;
  cleaned = true;
  keepAlive.destroy();
  if (daemon) {
    killTmuxServer(daemon.home);
    fs.rmSync(daemon.home, { recursive: true, force: true });
  }
}
let stopping: Promise<void> | undefined;
/** The orderly stop; a signal during the normal one waits for it rather than stopping the daemon twice. */
function cleanup(): Promise<void> {
  return (stopping ??= (async () => {
    keepAlive.destroy();
    await daemon?.stop().catch((err) => console.error('daemon stop:', err));
    await llm?.close().catch(() => undefined);
    cleanupSync();
  })());
}
interface Frame {
  event: string;
  data: any;
}

interface Fetched {
  status: number;
  /** Request written to the last byte read, ms. */
  totalMs: number;
  /** When each content chunk arrived, ms after the request was written (the arrival of the read that held it). */
  chunkAt: number[];
  /** Non-SSE bodies only, parsed. */
  json: any;
  lastEvent: string | null;
}

/**
 * The one client both legs use: POSTs JSON over a kept-alive node:http connection and reads the answer to the end,
 * parsing every SSE frame's data as JSON (as any real client must) and timing the ones `isChunk` says carry content.
 */
function post(
  port: number,
  path: string,
  body: string,
  headers: Record<string, string>,
  isChunk: (f: Frame) => boolean,
  timeoutMs = 30_000,
): Promise<Fetched> {
  return new Promise((resolve, reject) => {
    const chunkAt: number[] = [];
    let t0 = 0;
    let lastEvent: string | null = null;
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path,
        agent: keepAlive,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
        timeout: timeoutMs,
      },
      (res) => {
        const sse = String(res.headers['content-type'] ?? '').startsWith('text/event-stream');
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          const at = performance.now() - t0;
          buf += c;
          if (!sse) return;
          let start = 0;
          let end: number;
          while ((end = buf.indexOf('\n\n', start)) >= 0) {
            const frame = parseFrame(buf.slice(start, end));
            start = end + 2;
            if (!frame) continue;
            lastEvent = frame.event;
            if (isChunk(frame)) chunkAt.push(at);
          }
          buf = buf.slice(start);
        });
        res.on('end', () => {
          const totalMs = performance.now() - t0;
          let json: any = null;
          if (!sse) {
            try {
              json = JSON.parse(buf);
            } catch {
              json = buf;
            }
          }
          resolve({ status: res.statusCode ?? 0, totalMs, chunkAt, json, lastEvent });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer from ${path} within ${timeoutMs} ms`)));
    req.on('error', reject);
    t0 = performance.now();
    req.end(body);
  });
}

function parseFrame(text: string): Frame | null {
  let event = 'message';
  let data: string | null = null;
  for (const line of text.split('\n')) {
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('data: ')) data = data === null ? line.slice(6) : `${data}\n${line.slice(6)}`;
  }
  if (data === null) return null;
  return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
}

const leoChunk = (f: Frame) => f.event === 'inference.chunk';
// The role-only first delta (`content: ''`) is not a chunk: Leo skips it too, so both legs time the same delta.
const directChunk = (f: Frame) =>
  typeof f.data?.choices?.[0]?.delta?.content === 'string' && !!f.data.choices[0].delta.content;

/** Both ways of asking for one kind of reply. */
interface Legs {
  leo(): Promise<Fetched>;
  direct(): Promise<Fetched>;
}

function legs(kind: string, sse: boolean, directBody: string, timeoutMs?: number): Legs {
  const d = daemon!;
  const port = Number(new URL(llm!.baseUrl).port);
  const auth = { authorization: `Bearer ${d.daemon.operatorToken}` };
  // Every turn a new session, so the history (and what Leo replays and sends) stays one user message long.
  const leoBody = JSON.stringify({ message: kind, ...(sse ? { sse: true } : {}) });
  return {
    async leo() {
      const r = await post(d.daemon.port, '/agents/bot/chat', leoBody, auth, leoChunk, timeoutMs);
      const failed = sse ? r.lastEvent !== 'done' : r.json?.message?.content !== REPLIES[kind]!.text;
      if (r.status !== 200 || failed)
        throw new Error(`${kind} through Leo failed: ${r.status} ${sse ? r.lastEvent : JSON.stringify(r.json)}`);
      return r;
    },
    async direct() {
      const headers = { accept: 'text/event-stream', authorization: `Bearer ${API_KEY}` };
      const r = await post(port, '/v1/chat/completions', directBody, headers, directChunk, timeoutMs);
      if (r.status !== 200 || r.lastEvent === null) throw new Error(`${kind} direct failed: ${r.status}`);
      return r;
    },
  };
}

/** One turn through Leo, so the engine's own request body for this kind can be sent verbatim on the direct leg. */
async function capture(kind: string, sse: boolean, timeoutMs?: number): Promise<Legs> {
  const before = llm!.completionRequests().length;
  await legs(kind, sse, '{}', timeoutMs).leo();
  const sent = llm!.completionRequests()[before];
  if (!sent) throw new Error(`Leo sent no completion request for ${kind}`);
  return legs(kind, sse, JSON.stringify(sent.body), timeoutMs);
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

interface Sampled {
  leo: Fetched[];
  direct: Fetched[];
  /** Whole-process CPU per turn (client, daemon and scripted server alike), each leg. */
  leoCpuMs: number;
  directCpuMs: number;
}

/** Runs `n` turns of each leg, alternating which goes first so that neither always runs right after the other. */
async function alternate(l: Legs, n: number, deadline: number): Promise<Sampled> {
  for (let i = 0; i < WARMUP_TURNS; i++) {
    await l.leo();
    await l.direct();
  }
  const out: Sampled = { leo: [], direct: [], leoCpuMs: 0, directCpuMs: 0 };
  const one = async (leg: 'leo' | 'direct') => {
    const c0 = cpuMs();
    out[leg].push(await l[leg]());
    out[leg === 'leo' ? 'leoCpuMs' : 'directCpuMs'] += cpuMs() - c0;
  };
  for (let i = 0; i < n; i++) {
    if (performance.now() > deadline) {
      console.log(`  (stopped after ${i} of ${n} turns: time budget)`);
      break;
    }
    for (const leg of i % 2 === 0 ? (['leo', 'direct'] as const) : (['direct', 'leo'] as const)) await one(leg);
  }
  out.leoCpuMs /= Math.max(1, out.leo.length);
  out.directCpuMs /= Math.max(1, out.direct.length);
  return out;
}

const gaps = (at: number[]) => at.slice(1).map((t, i) => t - at[i]!);

/** A latency row: each leg's p50/p99 and Leo's excess over direct at both. */
function latencyRow(name: string, leo: number[], direct: number[]): string[] {
  const [d50, d99, l50, l99] = [quantile(direct, 0.5), quantile(direct, 0.99), quantile(leo, 0.5), quantile(leo, 0.99)];
  return [name, String(direct.length), fmt(d50), fmt(d99), fmt(l50), fmt(l99), fmt(l50 - d50), fmt(l99 - d99)];
}

interface Throughput {
  leg: string;
  r: Fetched;
  cpuMs: number;
}

async function throughput(leg: string, f: () => Promise<Fetched>): Promise<Throughput> {
  const c0 = cpuMs();
  const r = await f();
  return { leg, r, cpuMs: cpuMs() - c0 };
}

/** Content chunks per second between the first chunk and the last, or from the request on with `fromRequest`. */
function rate(t: Throughput, fromRequest = false): number {
  const at = t.r.chunkAt;
  if (at.length < 2) return NaN;
  return fromRequest ? (at.length / at.at(-1)!) * 1000 : ((at.length - 1) / (at.at(-1)! - at[0]!)) * 1000;
}

async function main(): Promise<void> {
  const started = performance.now();
  llm = await OpenAiServer.start({
    script: (req) => REPLIES[lastUserText(req.body) ?? ''],
    defaultReply: { text: 'unscripted' },
  });
  daemon = await startTestDaemon({
    clock: systemClock,
    config: `
environments:
  keys: { OPENAI_KEY: ${API_KEY} }
templates:
  bot:
    harness: shell
    command: "exec cat"
    environments: [keys]
    chat: { enabled: true, engine: openai, base_url: "${llm.baseUrl}", api_key_env: OPENAI_KEY, model: ${MODEL} }
`,
  });
  const spawned = await request(daemon.tcp, 'POST', '/api/v1/agents/spawn', {
    token: daemon.daemon.operatorToken,
    body: { template: 'bot', name: 'bot' },
  });
  if (spawned.status !== 201) throw new Error(`spawning bot: ${spawned.status} ${spawned.text}`);
  const load = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');
  console.log(
    `Node ${process.version}, ${os.availableParallelism()} cores, load ${load}; every turn a new session;` +
      ` ${WARMUP_TURNS} unmeasured turns per leg before each measured set`,
  );
  const elapsed = () => `${fmt((performance.now() - started) / 1000, 1)} s`;

  const json = await alternate(await capture('json turn', false), turns, started + JSON_DEADLINE_MS);
  console.log(`JSON turns: ${json.leo.length} per leg, ${elapsed()}`);
  const sse = await alternate(await capture('sse turn', true), turns, started + SSE_DEADLINE_MS);
  console.log(`SSE turns: ${sse.leo.length} per leg, ${elapsed()}`);

  // Whatever the turns left of the budget, bar a margin for the stop; a leg that overruns it fails the run.
  const left = BUDGET_MS - (performance.now() - started) - 10_000;
  const thrLegs = await capture('sse throughput', true, left / 4);
  await thrLegs.direct();
  const thr = [await throughput('direct', thrLegs.direct), await throughput('through Leo', thrLegs.leo)];
  console.log(`throughput: ${elapsed()}`);

  console.log(
    `\nms; direct = the scripted server's /v1/chat/completions stream read to its end by the same client;` +
      ` added = through Leo less direct, at the same percentile\n`,
  );
  const chunkTimes = (rs: Fetched[]) => rs.map((r) => r.chunkAt[0] ?? NaN);
  table(
    ['measure', 'samples', 'direct p50', 'direct p99', 'Leo p50', 'Leo p99', 'added p50', 'added p99'],
    [
      latencyRow(
        'JSON turn (request to last byte)',
        json.leo.map((r) => r.totalMs),
        json.direct.map((r) => r.totalMs),
      ),
      latencyRow(`SSE time to first chunk`, chunkTimes(sse.leo), chunkTimes(sse.direct)),
      latencyRow(
        `SSE gap between chunks (${CHUNK_DELAY_MS} ms scripted)`,
        sse.leo.flatMap((r) => gaps(r.chunkAt)),
        sse.direct.flatMap((r) => gaps(r.chunkAt)),
      ),
      latencyRow(
        'SSE turn (request to last byte)',
        sse.leo.map((r) => r.totalMs),
        sse.direct.map((r) => r.totalMs),
      ),
    ],
  );
  const counts = (rs: Fetched[]) => [...new Set(rs.map((r) => r.chunkAt.length))].join('/');
  console.log(
    `\nprocess CPU per turn, direct / Leo: JSON ${fmt(json.directCpuMs)} / ${fmt(json.leoCpuMs)} ms,` +
      ` SSE ${fmt(sse.directCpuMs)} / ${fmt(sse.leoCpuMs)} ms; content chunks per SSE turn, direct / Leo:` +
      ` ${counts(sse.direct)} / ${counts(sse.leo)} (scripted ${chunks})\n`,
  );

  // The scripted server writes a reply with no delay in one synchronous burst, on the same thread as everything
  // else, so the first chunk reaches either client only once the whole reply has been produced.
  table(
    [
      'SSE throughput',
      'chunks',
      'to first chunk ms',
      'first to last chunk ms',
      'to last byte ms',
      'chunks/s first to last',
      'chunks/s from request',
      'CPU ms',
    ],
    thr.map((t) => [
      t.leg,
      String(t.r.chunkAt.length),
      fmt(t.r.chunkAt[0] ?? NaN, 1),
      fmt((t.r.chunkAt.at(-1) ?? NaN) - (t.r.chunkAt[0] ?? NaN), 1),
      fmt(t.r.totalMs, 1),
      fmt(rate(t), 0),
      fmt(rate(t, true), 0),
      fmt(t.cpuMs, 0),
    ]),
  );
  const [direct, leo] = thr as [Throughput, Throughput];
  console.log(
    `\nthrough Leo / direct chunks/s: ${fmt(rate(leo) / rate(direct), 2)}x first to last,` +
      ` ${fmt(rate(leo, true) / rate(direct, true), 2)}x from the request; total ${elapsed()}`,
  );
}

runGuarded(BUDGET_MS, main, cleanup, cleanupSync);
