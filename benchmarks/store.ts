/**
 * What the chat store costs as it grows, in three parts:
 *
 * - ingest: an agent's posts (`POST /api/agent/:name/chat/post`, agent token: stored and published, never delivered)
 *   from a few concurrent keep-alive clients, against the floor of a bare loop on the SQLite driver of this Node into
 *   the same `messages` table, opened by Leo's own `openDatabase` (so the same WAL, synchronous, foreign-key and
 *   busy-timeout pragmas and the same migrations), one insert per transaction as `ChatStore.insert` does;
 * - between them, `ChatStore.insert` called directly, and a bare fastify app storing each post with it (no auth,
 *   validation, events or delivery), which split the gap into store code, HTTP itself and what Leo adds;
 * - history: `GET /api/v1/chat/:agent/messages?before=<id>&limit=50` on one thread grown to 10k, 100k and 1M
 *   messages: the newest page, a middle page, the oldest page and pages at random cursors.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/store.js [--messages 1000000] [--concurrency 1,4,16]
 *     [--seconds 5]
 *
 * The daemon is the real one, in-process on the real clock (`startTestDaemon`), over loopback TCP. The HTTP clients
 * run in a worker thread, so the daemon's event loop does only the daemon's work and the times are what a client on
 * another core sees. Prints figures, asserts nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Fastify from 'fastify';
import { encodeTime } from 'ulid';
import { ChatStore } from '../src/chat/threads/chat-store.js';
import { systemClock } from '../src/core/clock.js';
import { newId } from '../src/core/ids.js';
import { rfc3339 } from '../src/core/time.js';
import { openDatabase, type Database } from '../src/store/database.js';
import { sqliteDriver } from '../src/store/sqlite.js';
import { killTmuxServer, startTestDaemon, type TestDaemon } from '../test/helpers/daemon.js';
import { request } from '../test/helpers/http.js';
import { LoadClient } from './lib/http-load.js';
import { cpuPerOp, fmt, runGuarded, machineLine, mainThreadCpuMs, maxOf, quantile, table } from './lib/report.js';
import { int, ints, options } from './lib/options.js';

/** Hard stop, whatever the machine: the default run takes about 75 s on two cores. */
const BUDGET_MS = 175_000;
const HISTORY_SIZES = [10_000, 100_000, 1_000_000];
const PAGE = 50;
/** Rows per seeding transaction: big enough to amortise the commit, small enough to keep the WAL modest. */
const SEED_BATCH = 50_000;
const RANDOM_CURSORS = 500;
const POSTER = 'poster';
const THREAD = 'history';

/** Message bodies of assorted lengths (2 to 309 characters), rotated so rows are not all the same size. */
const TEXTS = [
  'ok',
  'Done. Tests pass.',
  'Pushed the fix to the branch; CI is running now.',
  'I looked at the failing test: it depends on the local time zone. Pinning TZ=UTC in the runner fixes it.',
  'Summary of the refactor:\n- moved the parser into its own module\n- added tests for the edge cases\n- no behaviour change',
  'Here is what I found in the logs. The worker restarts every few minutes because the health check times out ' +
    'while the database migration holds a lock; the migration itself is fine, it is just slow on the big table. ' +
    'Options: run it in batches, or raise the health-check timeout during deploys. I would batch it.',
  'Build finished in 3m12s.',
  'Question answered in the doc; I also added a short example to the README so the next person does not have to ' +
    'dig through the issue thread to find it.',
];

// ---- measurement helpers --------------------------------------------------------------------------------------

const thousands = (v: number) => (Number.isNaN(v) ? 'n/a' : Math.round(v).toLocaleString('en-US'));

// ---- the benchmark (main thread) ------------------------------------------------------------------------------

interface Options {
  messages: number;
  concurrency: number[];
  seconds: number;
}

interface Row {
  what: string;
  inFlight: string;
  latencies: number[];
  perSecond: number;
  errors: number;
  /** The daemon's main-thread event-loop utilisation, warm-up included (HTTP rows only). */
  elu: number | null;
  /** Main-thread CPU per message, µs. */
  cpuUs: number | null;
}

const loads = new LoadClient();
let daemon: TestDaemon | undefined;
let scratch: string | undefined;
let cleaned = false;

/** Synchronous, so it also runs from the exit handler: whatever the async stop did not get to. */
function cleanupSync(): void {
  if (cleaned) return;
  cleaned = true;
  void loads.close();
  if (daemon) {
    killTmuxServer(daemon.home);
    fs.rmSync(daemon.home, { recursive: true, force: true });
  }
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
}

async function cleanup(): Promise<void> {
  if (cleaned) return;
  await loads.close();
  const d = daemon;
  daemon = undefined;
  await d?.stop().catch((err) => console.error('daemon stop:', err));
  cleanupSync();
}

/** One insert per transaction, like `ChatStore.insert`, for `ms` after a short warm-up; per-insert times in ms. */
function timedLoop(
  ms: number,
  insert: (i: number) => void,
): { latencies: number[]; perSecond: number; cpuUs: number | null } {
  const warmEnd = performance.now() + 500;
  let i = 0;
  while (performance.now() < warmEnd) insert(i++);
  const latencies: number[] = [];
  const cpu0 = mainThreadCpuMs();
  const start = performance.now();
  const end = start + ms;
  let now = start;
  while (now < end) {
    insert(i++);
    const after = performance.now();
    latencies.push(after - now);
    now = after;
  }
  return {
    latencies,
    perSecond: latencies.length / ((now - start) / 1000),
    cpuUs: cpuPerOp(cpu0, latencies.length),
  };
}

function bareLoops(dir: string, seconds: number): Row[] {
  const rows: Row[] = [];
  // A fresh file each, so neither inherits the other's table or WAL.
  const bareDb = openDatabase(path.join(dir, 'bare.db'));
  try {
    // Every column bound, nulls included, as ChatStore.insert binds them.
    const cols = [
      'id',
      'agent',
      'direction',
      'kind',
      'text',
      'sender',
      'transcript',
      'reply_to',
      'task',
      'run_id',
      'state',
      'answer',
      'input',
      'permission',
      'ts',
      'deadline',
      'closed_reason',
      'delivery_note',
    ];
    const stmt = bareDb.prepare(
      `INSERT INTO messages (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`,
    );
    const insert = bareDb.transaction((row: Record<string, string | null>) => stmt.run(row));
    const r = timedLoop(seconds * 1000, (i) => {
      const now = Date.now();
      insert({
        id: newId(now),
        agent: POSTER,
        direction: 'out',
        kind: 'text',
        text: TEXTS[i % TEXTS.length]!,
        sender: null,
        transcript: null,
        reply_to: null,
        task: null,
        run_id: null,
        state: '',
        answer: null,
        input: null,
        permission: null,
        ts: rfc3339(now),
        deadline: null,
        closed_reason: null,
        delivery_note: null,
      });
    });
    rows.push({ what: `bare ${sqliteDriver} loop`, inFlight: '1', ...r, errors: 0, elu: null });
  } finally {
    bareDb.close();
  }
  const storeDb = openDatabase(path.join(dir, 'store.db'));
  try {
    const store = new ChatStore(storeDb, systemClock);
    const r = timedLoop(seconds * 1000, (i) => {
      store.insert({ agent: POSTER, direction: 'out', kind: 'text', text: TEXTS[i % TEXTS.length]!, state: '' });
    });
    rows.push({ what: 'ChatStore.insert, no HTTP', inFlight: '1', ...r, errors: 0, elu: null });
  } finally {
    storeDb.close();
  }
  return rows;
}

async function ingest(opts: Options): Promise<Row[]> {
  const d = (daemon = await startTestDaemon({
    clock: systemClock,
    config: `templates:\n  idle:\n    harness: shell\n    command: "exec sleep 100000"\n`,
  }));
  const spawned = await request(d.tcp, 'POST', '/api/v1/agents/spawn', {
    token: d.daemon.operatorToken,
    body: { template: 'idle', name: POSTER },
  });
  if (spawned.status !== 201) throw new Error(`spawning ${POSTER}: ${spawned.status} ${spawned.text}`);
  const rows: Row[] = [];
  for (const c of opts.concurrency) {
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = mainThreadCpuMs();
    const r = await loads.run({
      port: d.daemon.port,
      method: 'POST',
      headers: { authorization: `Bearer ${d.daemon.agentToken}` },
      requests: TEXTS.map((text) => ({ path: `/api/agent/${POSTER}/chat/post`, body: JSON.stringify({ text }) })),
      concurrency: c,
      warmupMs: 1000,
      measureMs: opts.seconds * 1000,
    });
    // Warm-up included: the loop is equally busy in both stretches, so the ratio is the same.
    const elu = performance.eventLoopUtilization(elu0).utilization;
    const cpuUs = cpuPerOp(cpu0, r.total);
    if (r.firstError) console.log(`  HTTP ×${c}: ${r.errors} errors, first: ${r.firstError}`);
    rows.push({
      what: 'HTTP agent post',
      inFlight: String(c),
      latencies: r.latencies,
      perSecond: r.latencies.length / opts.seconds,
      errors: r.errors,
      elu,
      cpuUs,
    });
    console.log(`  HTTP ×${c}: ${thousands(rows.at(-1)!.perSecond)} messages/s`);
  }
  const stored = d.daemon.db.prepare('SELECT COUNT(*) FROM messages WHERE agent = ?').pluck().get(POSTER) as number;
  console.log(`  (${thousands(stored)} messages stored in the daemon's thread)`);
  daemon = undefined;
  await d.stop();
  return rows;
}

/**
 * The floor for any HTTP ingest in Node: a bare fastify app that parses the same bodies and stores each with
 * `ChatStore.insert` into a fresh file, with no auth, validation, events or delivery. It splits the gap to the bare
 * loop into what HTTP costs at all and what Leo adds on top.
 */
async function httpFloor(dir: string, opts: Options): Promise<Row> {
  const db = openDatabase(path.join(dir, 'floor.db'));
  const store = new ChatStore(db, systemClock);
  const app = Fastify();
  app.post<{ Params: { name: string }; Body: { text: string } }>('/api/agent/:name/chat/post', async (req, reply) => {
    const m = store.insert({ agent: req.params.name, direction: 'out', kind: 'text', text: req.body.text, state: '' });
    return reply.code(201).send({ ok: true, data: { id: m.id } });
  });
  try {
    await app.listen({ host: '127.0.0.1', port: 0 });
    const port = (app.server.address() as { port: number }).port;
    const c = Math.max(...opts.concurrency);
    const elu0 = performance.eventLoopUtilization();
    const cpu0 = mainThreadCpuMs();
    const r = await loads.run({
      port,
      method: 'POST',
      headers: {},
      requests: TEXTS.map((text) => ({ path: `/api/agent/${POSTER}/chat/post`, body: JSON.stringify({ text }) })),
      concurrency: c,
      warmupMs: 1000,
      measureMs: opts.seconds * 1000,
    });
    if (r.firstError) console.log(`  floor: ${r.errors} errors, first: ${r.firstError}`);
    const perSecond = r.latencies.length / opts.seconds;
    console.log(`  fastify + ChatStore.insert ×${c}: ${thousands(perSecond)} messages/s`);
    return {
      what: 'fastify + ChatStore.insert',
      inFlight: String(c),
      latencies: r.latencies,
      perSecond,
      errors: r.errors,
      elu: performance.eventLoopUtilization(elu0).utilization,
      cpuUs: cpuPerOp(cpu0, r.total),
    };
  } finally {
    await app.close();
    db.close();
  }
}

interface PageRow {
  size: number;
  page: string;
  latencies: number[];
  kbPerPage: number;
  errors: number;
  /** Main-thread CPU per request, µs. */
  cpuUs: number | null;
}

/** Appends messages to THREAD up to `to`, oldest first, in big transactions on the daemon's own connection. */
function seed(db: Database, from: number, to: number, firstMs: number): void {
  // Real ULID layout, time first; the random half is the row number instead, since a fresh random per row (what
  // the ulid package does) made it the slowest step of seeding, and ten seconds apart every time is distinct anyway.
  const id = (at: number, i: number) => encodeTime(at, 10) + encodeTime(i, 16);
  const stmt = db.prepare(
    'INSERT INTO messages (id, agent, direction, kind, text, state, ts) VALUES (?, ?, ?, ?, ?, ?, ?)',
  );
  const batch = db.transaction((a: number, b: number) => {
    for (let i = a; i < b; i++) {
      // Ten seconds apart: 1M messages span about four months, all in the past.
      const at = firstMs + i * 10_000;
      const inbound = i % 2 === 0;
      stmt.run(
        id(at, i),
        THREAD,
        inbound ? 'in' : 'out',
        'text',
        TEXTS[i % TEXTS.length]!,
        inbound ? 'delivered' : '',
        rfc3339(at),
      );
    }
  });
  for (let a = from; a < to; a += SEED_BATCH) batch(a, Math.min(to, a + SEED_BATCH));
  // As a long-running daemon would have it: the WAL folded back into the main file.
  db.pragma('wal_checkpoint(TRUNCATE)');
}

async function history(opts: Options, started: number): Promise<PageRow[]> {
  const sizes = [...new Set([...HISTORY_SIZES.filter((s) => s < opts.messages), opts.messages])];
  const d = (daemon = await startTestDaemon({ clock: systemClock }));
  const db = d.daemon.db;
  const firstMs = Date.now() - opts.messages * 10_000 - 86_400_000;
  const idAt = db.prepare('SELECT id FROM messages WHERE rowid = ?').pluck();
  const rows: PageRow[] = [];
  let have = 0;
  let seedRate = 0;
  const measureMs = 2000;
  for (const size of sizes) {
    const left = BUDGET_MS - (performance.now() - started) - 10_000;
    const seedEstimate = seedRate ? ((size - have) / seedRate) * 1000 : 0;
    if (seedEstimate + 4 * (measureMs + 300) > left) {
      console.log(`  (stopping before ${thousands(size)} messages: time budget)`);
      break;
    }
    const s0 = performance.now();
    seed(db, have, size, firstMs);
    seedRate = (size - have) / ((performance.now() - s0) / 1000);
    console.log(`  seeded ${thousands(size)} messages (${thousands(seedRate)} rows/s)`);
    have = size;
    // The thread is the only one in this database, so rowid k is the k-th oldest message.
    const cursor = (k: number) => encodeURIComponent(idAt.get(k) as string);
    const base = `/api/v1/chat/${THREAD}/messages?limit=${PAGE}`;
    const kinds: [string, string[]][] = [
      ['newest', [base]],
      ['middle', [`${base}&before=${cursor(Math.floor(size / 2))}`]],
      ['oldest', [`${base}&before=${cursor(PAGE + 1)}`]],
      [
        'random',
        Array.from(
          { length: RANDOM_CURSORS },
          () => `${base}&before=${cursor(PAGE + 1 + Math.floor(Math.random() * (size - PAGE)))}`,
        ),
      ],
    ];
    for (const [page, paths] of kinds) {
      const cpu0 = mainThreadCpuMs();
      const r = await loads.run({
        port: d.daemon.port,
        method: 'GET',
        headers: { authorization: `Bearer ${d.daemon.operatorToken}` },
        requests: paths.map((p) => ({ path: p })),
        concurrency: 1,
        warmupMs: 300,
        measureMs,
      });
      if (r.firstError) console.log(`  ${page} @ ${size}: ${r.errors} errors, first: ${r.firstError}`);
      rows.push({
        size,
        page,
        latencies: r.latencies,
        kbPerPage: r.bytes / 1024 / Math.max(1, r.latencies.length),
        errors: r.errors,
        cpuUs: cpuPerOp(cpu0, r.total),
      });
    }
  }
  const bytes = fs.statSync(d.daemon.paths.database).size;
  console.log(`  chat.db ${(bytes / 1024 / 1024).toFixed(0)} MiB at ${thousands(have)} messages`);
  daemon = undefined;
  await d.stop();
  return rows;
}

function report(bare: Row[], floorRow: Row, http: Row[], pages: PageRow[]): void {
  const floor = bare[0]!.perSecond;
  console.log(
    '\ningest: one message per request and per transaction; p50/p99/max per request (HTTP) or per insert (loops);' +
      ' CPU = main-thread CPU per message (the daemon and SQLite; the HTTP client is on another thread);' +
      " loop util = the daemon's main-thread event-loop utilisation\n",
  );
  table(
    [
      'path',
      'in flight',
      'messages/s',
      'p50 ms',
      'p99 ms',
      'max ms',
      'CPU µs/msg',
      'loop util',
      'errors',
      'vs bare loop',
    ],
    [...bare, floorRow, ...http].map((r) => [
      r.what,
      r.inFlight,
      thousands(r.perSecond),
      fmt(quantile(r.latencies, 0.5), 3),
      fmt(quantile(r.latencies, 0.99), 3),
      fmt(maxOf(r.latencies), 2),
      r.cpuUs === null ? 'n/a' : fmt(r.cpuUs, 0),
      r.elu === null ? '' : `${(r.elu * 100).toFixed(0)}%`,
      String(r.errors),
      `${((r.perSecond / floor) * 100).toFixed(1)}%`,
    ]),
  );
  const best = Math.max(...http.map((r) => r.perSecond));
  console.log(
    `\nbest HTTP ingest / bare loop: ${((best / floor) * 100).toFixed(1)}% (goal ≥ 50%)` +
      `; ChatStore.insert / bare loop: ${((bare[1]!.perSecond / floor) * 100).toFixed(1)}%` +
      `; fastify + insert / bare loop: ${((floorRow.perSecond / floor) * 100).toFixed(1)}%` +
      `; Leo / fastify + insert: ${((best / floorRow.perSecond) * 100).toFixed(1)}%`,
  );

  if (!pages.length) return;
  console.log(`\nhistory: GET /api/v1/chat/${THREAD}/messages?limit=${PAGE}[&before=<id>], one request in flight\n`);
  table(
    ['messages', 'page', 'requests', 'p50 ms', 'p99 ms', 'max ms', 'CPU µs/req', 'KiB/page', 'errors'],
    pages.map((r) => [
      thousands(r.size),
      r.page,
      String(r.latencies.length),
      fmt(quantile(r.latencies, 0.5)),
      fmt(quantile(r.latencies, 0.99)),
      fmt(maxOf(r.latencies)),
      r.cpuUs === null ? 'n/a' : fmt(r.cpuUs, 0),
      fmt(r.kbPerPage, 1),
      String(r.errors),
    ]),
  );
  const sizes = [...new Set(pages.map((r) => r.size))];
  if (sizes.length > 1) {
    console.log(`\ngrowth, p50 ms (p99 ms) by thread size\n`);
    const kinds = [...new Set(pages.map((r) => r.page))];
    table(
      ['page', ...sizes.map(thousands), `x from ${thousands(sizes[0]!)}`],
      kinds.map((k) => {
        const of = (s: number) => pages.find((r) => r.size === s && r.page === k)!.latencies;
        const p50 = (s: number) => quantile(of(s), 0.5);
        return [
          k,
          ...sizes.map((s) => `${fmt(p50(s))} (${fmt(quantile(of(s), 0.99))})`),
          `${fmt(p50(sizes.at(-1)!) / p50(sizes[0]!))}x`,
        ];
      }),
    );
  }
}

async function main(opts: Options): Promise<void> {
  const started = performance.now();
  console.log(machineLine());
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-bench-store-'));

  console.log(`bare loops, ${opts.seconds} s each`);
  const bare = bareLoops(scratch, opts.seconds);
  console.log(`ingest over HTTP, ${opts.seconds} s per level after 1 s warm-up`);
  const floorRow = await httpFloor(scratch, opts);
  const httpRows = await ingest(opts);
  console.log(`history, up to ${thousands(opts.messages)} messages`);
  const pages = await history(opts, started);
  report(bare, floorRow, httpRows, pages);
  console.log(`\ntotal ${fmt((performance.now() - started) / 1000, 1)} s`);
}

const opts: Options = options({ messages: int(1_000_000), concurrency: ints([1, 4, 16]), seconds: int(5) });
runGuarded(BUDGET_MS, () => main(opts), cleanup, cleanupSync);
