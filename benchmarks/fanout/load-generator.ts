/**
 * The fan-out benchmark's subscriber side, a process of its own so the servers under test never share its event
 * loop: it holds N SSE connections, finds each event's marker (`fanout:<seq>:<publish ms>`), and records publish →
 * receive latency on the machine-wide monotonic clock. Driven by JSON lines on stdin, answers with JSON lines on
 * stdout (protocol.ts). Started through generator.ts by fanout.ts and the soak; not meant to be run by hand.
 *
 * It parses bytes, never strings: at 5 000 subscribers × 1 000 events/s this process reads millions of frames a second
 * on the same two cores as the server, and decoding each chunk to a string would make it the bottleneck sooner.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { Histogram, MARKER, sharedNowMs, type Command, type GroupCounts, type Reply } from './protocol.js';

const MARKER_BYTES = Buffer.from(MARKER);
const FRAME_END = Buffer.from('\n\n');
/** Connections opening at once: more would overflow the servers' accept backlogs and add SYN-retry seconds. */
const OPEN_CONCURRENCY = 64;
const COLON = 0x3a;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

interface Group extends GroupCounts {
  conns: Set<Conn>;
}

interface Conn {
  group: Group;
  req: http.ClientRequest;
  res: http.IncomingMessage | null;
  rest: Buffer | null;
  closed: boolean;
}

const groups = new Map<string, Group>();
const hist = new Histogram();
let from = Number.POSITIVE_INFINITY;
let delivered = 0;
let bytes = 0;
let firstRecvMs = 0;
let lastRecvMs = 0;

function send(r: Reply): void {
  process.stdout.write(`${JSON.stringify(r)}\n`);
}

function onChunk(c: Conn, chunk: Buffer): void {
  const now = sharedNowMs();
  const b = c.rest ? Buffer.concat([c.rest, chunk]) : chunk;
  const end = b.lastIndexOf(FRAME_END);
  if (end < 0) {
    c.rest = Buffer.from(b);
    return;
  }
  // Only markers before the last frame end belong to complete frames; the remainder waits for the next chunk.
  let i = b.indexOf(MARKER_BYTES);
  while (i >= 0 && i < end) {
    let j = i + MARKER_BYTES.length;
    let seq = 0;
    for (let ch = b[j]!; ch >= ZERO && ch <= NINE; ch = b[++j]!) seq = seq * 10 + (ch - ZERO);
    let t = 0;
    if (b[j] === COLON) {
      j++;
      for (let ch = b[j]!; ch >= ZERO && ch <= NINE; ch = b[++j]!) t = t * 10 + (ch - ZERO);
      if (b[j] === DOT) {
        let scale = 0.1;
        for (let ch = b[++j]!; ch >= ZERO && ch <= NINE; ch = b[++j]!) {
          t += (ch - ZERO) * scale;
          scale /= 10;
        }
      }
    }
    c.group.delivered++;
    if (seq >= from) {
      delivered++;
      hist.add(now - t);
      if (firstRecvMs === 0) firstRecvMs = now;
      lastRecvMs = now;
    }
    i = b.indexOf(MARKER_BYTES, j);
  }
  if (from !== Number.POSITIVE_INFINITY) bytes += chunk.length;
  c.rest = end + 2 < b.length ? Buffer.from(b.subarray(end + 2)) : null;
}

function groupOf(name: string): Group {
  let g = groups.get(name);
  if (!g) {
    g = { open: 0, closed: 0, delivered: 0, conns: new Set() };
    groups.set(name, g);
  }
  return g;
}

function counts(): Record<string, GroupCounts> {
  const out: Record<string, GroupCounts> = {};
  for (const [name, g] of groups) out[name] = { open: g.open, closed: g.closed, delivered: g.delivered };
  return out;
}

/** Resolves once the response headers arrived (true) or the attempt failed (false, with why). */
function openOne(
  cmd: Extract<Command, { cmd: 'open' }>,
  group: Group,
): Promise<{ ok: true } | { ok: false; error: string }> {
  return new Promise((resolve) => {
    let settled = false;
    const settle = (r: { ok: true } | { ok: false; error: string }) => {
      if (!settled) {
        settled = true;
        resolve(r);
      }
    };
    const req = http.request({
      host: cmd.host,
      port: cmd.port,
      path: cmd.path,
      headers: { accept: 'text/event-stream', ...cmd.headers },
      // One socket per subscriber, as separate clients would have; a pooling agent would cap them.
      agent: false,
    });
    const conn: Conn = { group, req, res: null, rest: null, closed: false };
    const close = () => {
      if (conn.closed) return;
      conn.closed = true;
      if (conn.res) {
        group.open--;
        group.closed++;
      }
      group.conns.delete(conn);
    };
    req.on('error', (err) => {
      close();
      settle({ ok: false, error: err.message });
    });
    req.on('response', (res) => {
      if (res.statusCode !== 200) {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => settle({ ok: false, error: `HTTP ${res.statusCode}: ${body.slice(0, 200)}` }));
        return;
      }
      conn.res = res;
      group.open++;
      group.conns.add(conn);
      res.on('data', (chunk: Buffer) => onChunk(conn, chunk));
      res.on('close', close);
      if (cmd.stall) {
        res.pause();
        res.socket.pause();
      }
      settle({ ok: true });
    });
    req.end();
  });
}

async function open(cmd: Extract<Command, { cmd: 'open' }>): Promise<void> {
  const group = groupOf(cmd.group);
  const started = performance.now();
  let next = 0;
  let connected = 0;
  let failed = 0;
  let error: string | undefined;
  const worker = async () => {
    while (next < cmd.count) {
      next++;
      const r = await openOne(cmd, group);
      if (r.ok) connected++;
      else {
        failed++;
        error ??= r.error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, cmd.count) }, worker));
  const reply: Reply = { type: 'opened', group: cmd.group, connected, failed, ms: performance.now() - started };
  if (error) reply.error = error;
  send(reply);
}

function handle(cmd: Command): void {
  switch (cmd.cmd) {
    case 'open':
      void open(cmd).catch((err: Error) => send({ type: 'error', message: err.message }));
      return;
    case 'step':
      from = cmd.from;
      delivered = 0;
      bytes = 0;
      firstRecvMs = 0;
      lastRecvMs = 0;
      hist.clear();
      send({ type: 'progress', delivered, lastRecvMs, groups: counts() });
      return;
    case 'progress':
      send({ type: 'progress', delivered, lastRecvMs, groups: counts() });
      return;
    case 'collect':
      send({
        type: 'collected',
        stats: {
          delivered,
          bytes,
          firstRecvMs,
          lastRecvMs,
          p50: hist.quantile(0.5),
          p99: hist.quantile(0.99),
          max: hist.max,
        },
        groups: counts(),
      });
      return;
    case 'resume':
      for (const c of groupOf(cmd.group).conns) {
        c.res?.socket.resume();
        c.res?.resume();
      }
      send({ type: 'resumed', group: cmd.group });
      return;
    case 'close':
      for (const g of groups.values()) for (const c of [...g.conns]) c.req.destroy();
      groups.clear();
      from = Number.POSITIVE_INFINITY;
      send({ type: 'closed' });
      return;
  }
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  try {
    handle(JSON.parse(line) as Command);
  } catch (err) {
    send({ type: 'error', message: (err as Error).message });
  }
});
// The parent going away closes stdin: nothing left to report to.
process.stdin.on('end', () => process.exit(0));
send({ type: 'ready', pid: process.pid });
