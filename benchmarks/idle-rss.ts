/**
 * The idle daemon's memory (issue 34, item 4): the real daemon (`leo daemon`, a child process in a throwaway home) with
 * N idle shell agents and an app connected (its event stream open, the fleet read once), left to settle, then sampled.
 * Each variant runs in turn in one run, so the rows compare: the daemon as shipped, and with the flags or pool sizes
 * named on the command line. Printed per variant: RSS (anonymous and file-backed), the main thread's V8 heap (total,
 * used, after a full collection), the pool's threads, what the V8 heap pages of all threads hold (anonymous maps of
 * 256 KB to 1 MB, how V8 allocates its pages), malloc's (the brk heap and the small maps: SQLite's page cache and
 * prepared statements live there) and file-backed pages (the node binary and libraries: shared, reclaimable).
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/idle-rss.js [--agents 10] [--settle 40] [--samples 6]
 */
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnDaemon, waitForExit } from '../test/helpers/cli.js';
import { request, type Target } from '../test/helpers/http.js';
import { SseClient } from '../test/helpers/sse-client.js';
import { makeTempHome, testConfig } from '../test/helpers/temp-home.js';
import { freshTranscriptLines, promptIdOf, writeTranscript } from '../test/helpers/transcripts.js';
import { int, options, text } from './lib/options.js';
import { fmt, machineLine, quantile, table } from './lib/report.js';
import { HeapInspector } from './soak/inspector.js';

// 60 s to settle: for the first 25–30 s after a start (or a burst of turns) the daemon holds 35–45 MB more, the
// start-up's garbage until V8's memory reducer shrinks the heap, and a second pool thread until its 30 s idle timeout.
const o = options({ agents: int(10), settle: int(60), samples: int(6), every: int(2), variants: text('shipped') });

/** A variant: a name, and what the daemon's process gets (node's flags; the config's pool threads). */
interface Variant {
  name: string;
  nodeOptions: string;
  poolThreads?: number;
  /** Each agent is sent a message and its turn ends (a Stop with a transcript) before the daemon is left to settle. */
  turns?: boolean;
}

const VARIANTS: Record<string, Variant> = {
  shipped: { name: 'shipped', nodeOptions: '' },
  'after-turns': { name: 'after a turn each', nodeOptions: '', turns: true },
  'semi-1': { name: 'semi-space 1 MB', nodeOptions: '--max-semi-space-size=1' },
  'pool-1': { name: 'pool 1 thread', nodeOptions: '', poolThreads: 1 },
  size: { name: 'optimize for size', nodeOptions: '--optimize-for-size' },
};

interface Sample {
  rss: number;
  anon: number;
  file: number;
  v8Pages: number;
  malloc: number;
  threads: number;
}

/** kB → MB. */
const mb = (kb: number) => kb / 1024;

function sample(pid: number): Sample {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
  let v8Pages = 0;
  let malloc = 0;
  let size = 0;
  let kind: 'v8' | 'malloc' | 'other' = 'other';
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      size = (parseInt(head[2]!, 16) - parseInt(head[1]!, 16)) / 1024;
      const name = head[3]!.trim();
      kind = name === '[heap]' || (name === '' && size < 256) ? 'malloc' : name === '' && size <= 1024 ? 'v8' : 'other';
      continue;
    }
    const rss = /^Rss:\s+(\d+)/.exec(line);
    if (rss && kind === 'v8') v8Pages += Number(rss[1]);
    if (rss && kind === 'malloc') malloc += Number(rss[1]);
  }
  return {
    rss: field('VmRSS'),
    anon: field('RssAnon'),
    file: field('RssFile'),
    v8Pages,
    malloc,
    threads: field('Threads'),
  };
}

/**
 * What a day of work leaves in the daemon: each agent is typed a message and its Stop hook names a transcript whose
 * turn answered it, so the pool has captured replies and read turns' usage (their code loads on first use).
 */
async function takeTurns(tcp: Target, token: string, socketPath: string, dir: string): Promise<void> {
  for (let i = 0; i < o.agents; i++) {
    const agent = `a${i}`;
    const text = `What is 2+2? (${agent})`;
    const sent = await request(tcp, 'POST', `/api/v1/chat/${agent}/messages`, { token, body: { text } });
    if (sent.status !== 201) throw new Error(`send to ${agent}: ${sent.status} ${sent.text}`);
    const lines = freshTranscriptLines('plain', { swap: ['[Leo Chat] What is 2+2?', `[Leo Chat] ${text}`] });
    const transcript = writeTranscript(path.join(dir, `${agent}.jsonl`), lines);
    for (let n = 0; ; n++) {
      const page = await request(tcp, 'GET', `/api/v1/chat/${agent}/messages`, { token });
      const state = page.json.data.messages.find((m: { id: string }) => m.id === sent.json.data.id)?.state;
      if (state === 'delivered') break;
      if (n > 100) throw new Error(`the message to ${agent} was not delivered (${state})`);
      await sleep(100);
    }
    const stop = await request({ socketPath }, 'POST', '/hooks/stop', {
      body: {
        agent,
        payload: { transcript_path: transcript, hook_event_name: 'Stop', prompt_id: promptIdOf(lines, text) },
      },
    });
    if (stop.status !== 200) throw new Error(`stop of ${agent}: ${stop.status} ${stop.text}`);
  }
}

interface Row {
  variant: Variant;
  samples: Sample[];
  heapTotal: number;
  heapUsed: number;
  liveHeap: number;
  poolThreads: number;
}

async function measure(variant: Variant): Promise<Row> {
  const pool = variant.poolThreads ? `pool:\n  threads: ${variant.poolThreads}\n` : '';
  // The daemon's ready line is an info one; the pool as the config says (its default unless the variant names it).
  const config = testConfig('templates:\n  cat: { harness: shell, command: "exec cat" }\n')
    .replace('level: warn', 'level: info')
    .replace(/pool:\n {2}threads: 1\n/, pool);
  const home = makeTempHome(config);
  // On node's command line: some V8 flags (--optimize-for-size) are refused in NODE_OPTIONS.
  const prefix = variant.nodeOptions ? ['sh', '-c', `exec "$0" ${variant.nodeOptions} "$@"`] : [];
  const started = await spawnDaemon(home.env, { prefix });
  const pid = started.child.pid!;
  let app: SseClient | null = null;
  try {
    const tcp: Target = { port: started.port };
    const token = fs.readFileSync(path.join(home.home, 'state', 'api.token'), 'utf8').trim();
    for (let i = 0; i < o.agents; i++) {
      const r = await request(tcp, 'POST', '/api/v1/agents/spawn', { token, body: { template: 'cat', name: `a${i}` } });
      if (r.status !== 201) throw new Error(`spawn a${i}: ${r.status} ${r.text}`);
    }
    if (variant.turns) await takeTurns(tcp, token, path.join(home.home, 'state', 'leo.sock'), home.home);
    // The app as it opens: the shell, the fleet, then its event stream left open.
    await request(tcp, 'GET', '/');
    await request(tcp, 'GET', '/api/v1/state', { token });
    app = await SseClient.open(tcp, '/api/v1/events', token);
    await sleep(o.settle * 1000);
    const samples: Sample[] = [];
    for (let i = 0; i < o.samples; i++) {
      samples.push(sample(pid));
      await sleep(o.every * 1000);
    }
    const metrics = (await request(tcp, 'GET', '/metrics', { token })).text;
    const metric = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)?.[1] ?? NaN);
    const inspector = await HeapInspector.open(pid);
    const liveHeap = inspector ? await inspector.liveHeapMb() : NaN;
    inspector?.close();
    return {
      variant,
      samples,
      heapTotal: metric('leo_nodejs_heap_size_total_bytes') / 2 ** 20,
      heapUsed: metric('leo_nodejs_heap_size_used_bytes') / 2 ** 20,
      liveHeap,
      poolThreads: metric('leo_pool_threads'),
    };
  } finally {
    app?.close();
    started.child.kill('SIGTERM');
    await waitForExit(started.child, 20_000).catch(() => started.child.kill('SIGKILL'));
    home.cleanup();
  }
}

const rows: Row[] = [];
for (const key of o.variants.split(',')) {
  const variant = VARIANTS[key];
  if (!variant) throw new Error(`--variants: no variant "${key}" (${Object.keys(VARIANTS).join(', ')})`);
  console.error(`idle-rss: ${variant.name}…`);
  rows.push(await measure(variant));
}

console.log(machineLine());
console.log(
  `${o.agents} idle shell agents, the app's event stream open; ${o.settle} s to settle, then ${o.samples} samples ` +
    `${o.every} s apart (median shown; RSS max beside it)`,
);
const med = (r: Row, k: keyof Sample) =>
  quantile(
    r.samples.map((s) => s[k]),
    0.5,
  );
table(
  [
    'variant',
    'RSS MB',
    'RSS max',
    'anon MB',
    'file MB',
    'V8 pages MB',
    'malloc MB',
    'main heap total',
    'used',
    'live',
    'pool threads',
    'threads',
  ],
  rows.map((r) => [
    r.variant.name,
    fmt(mb(med(r, 'rss')), 1),
    fmt(mb(Math.max(...r.samples.map((s) => s.rss))), 1),
    fmt(mb(med(r, 'anon')), 1),
    fmt(mb(med(r, 'file')), 1),
    fmt(mb(med(r, 'v8Pages')), 1),
    fmt(mb(med(r, 'malloc')), 1),
    fmt(r.heapTotal, 1),
    fmt(r.heapUsed, 1),
    fmt(r.liveHeap, 1),
    String(r.poolThreads),
    String(med(r, 'threads')),
  ]),
);
console.log('goal: RSS ≤ 100 MB with 10 idle agents and the app connected');
