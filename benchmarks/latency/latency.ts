/**
 * What a person feels of a send and of a reply (issue 34, items 1 and 2), on an idle agent of every harness: the real
 * daemon in-process on real tmux, real Claude Code, Codex and opencode behind the scripted model servers of
 * test/helpers/ (set up as their end-to-end tests set them up, with a user's config), and two shell agents (bash,
 * which echoes what is typed, and the soak's sink with echo off).
 *
 * - send → typed: from the POST of a message to its `chat.updated` delivered on the app's event stream, which the
 *   daemon publishes once the text was in the pane and the Enter taken (the box emptied, or the cursor's line let
 *   the text go). Each delivery's steps come from its debug line ('delivery steps', src/delivery/step-times.ts).
 * - Stop → reply: from the end of the model's answer (the scripted server's last byte of the turn's response) and
 *   from the Stop hook reaching the daemon, to the reply's `chat.message` on the event stream; the steps from the
 *   reply's debug line ('reply steps', src/chat/replies/reply-watch.ts).
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/latency/latency.js [--sends 20] [--gap-ms 500]
 *     [--harnesses shell,claude,codex,opencode]
 *
 * Each agent gets an unmeasured warm-up message first (opencode creates its session with it), then `--sends` messages,
 * each once the reply to the one before has arrived and `--gap-ms` more have passed: an idle agent. Asserts nothing;
 * a harness whose CLI is not installed is skipped with the reason.
 */
import { spawnSync } from 'node:child_process';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../src/core/logger.js';
import { SseParser } from '../../src/wire/sse-parser.js';
import { startClaudeAgent } from '../../test/helpers/claude-agent.js';
import { killTmuxServer, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { startHarnessAgent, type CliHarness } from '../../test/helpers/harness-agent.js';
import { request } from '../../test/helpers/http.js';
import type { RecordedRequest } from '../../test/helpers/scripted-server.js';
import { int, options, text } from '../lib/options.js';
import { fmt, machineLine, maxOf, quantile, runGuarded, table } from '../lib/report.js';

const BUDGET_MS = 9 * 60_000;
/** No harness is started past this, so the tables of those done are printed inside the budget. */
const LAST_START_MS = 6 * 60_000;
const SETTLE_TIMEOUT_MS = 30_000;

const o = options({ sends: int(20), 'gap-ms': int(500, 0), harnesses: text('shell,claude,codex,opencode') });

/** The wall clock to the microsecond (Date.now() counts whole milliseconds). */
const now = () => performance.timeOrigin + performance.now();

/** One debug line of the daemon's: a delivery's or a reply's steps. */
interface Trace {
  msg: string;
  agent: string;
  time: number;
  ms: Record<string, number>;
}

/** The daemon's debug lines the benchmark reads: every line goes through here, the traced ones are kept. */
class TraceLog {
  readonly lines: Trace[] = [];
  write(line: string): void {
    if (!line.includes('"delivery steps"') && !line.includes('"reply steps"')) return;
    this.lines.push(JSON.parse(line) as Trace);
  }
  take(msg: string, agent: string): Trace | undefined {
    const i = this.lines.findIndex((l) => l.msg === msg && l.agent === agent);
    return i < 0 ? undefined : this.lines.splice(i, 1)[0];
  }
}

interface StreamEvent {
  at: number;
  type: string;
  data: { message?: { id: string; state: string; direction: string; reply_to?: string; kind: string } };
}

/** The app's event stream (`/api/v1/events`), each event stamped as it arrives. */
class AppStream {
  readonly events: StreamEvent[] = [];
  private constructor(private readonly req: http.ClientRequest) {}

  static open(port: number, token: string): Promise<AppStream> {
    return new Promise((resolve, reject) => {
      const parser = new SseParser();
      const req = http.request(
        { host: '127.0.0.1', port, path: '/api/v1/events', headers: { authorization: `Bearer ${token}` } },
        (res) => {
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            const at = now();
            for (const e of parser.feed(chunk)) stream.events.push({ at, type: e.event, data: JSON.parse(e.data) });
          });
          resolve(stream);
        },
      );
      const stream = new AppStream(req);
      req.on('error', reject);
      req.end();
    });
  }

  async first(what: string, pred: (e: StreamEvent) => boolean, timeoutMs = SETTLE_TIMEOUT_MS): Promise<StreamEvent> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.events.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no ${what} within ${timeoutMs} ms`);
      await sleep(5);
    }
  }

  close(): void {
    this.req.destroy();
  }
}

/** One agent under test: its daemon, the model server's requests (none for a shell agent), and whether it replies. */
interface Subject {
  label: string;
  agent: string;
  d: TestDaemon;
  token: string;
  requests: () => RecordedRequest[];
  replies: boolean;
}

interface Sample {
  typed: number;
  steps: Record<string, number>;
  /** From the model's end of the turn, from the Stop at the daemon, and the reply's steps; absent for shell agents. */
  reply?: { fromTurnEnd: number; fromStop: number; steps: Record<string, number> };
}

const cleanups: Array<() => Promise<void>> = [];
/** Every daemon's home, so an exit that skipped the orderly stop still ends its tmux server. */
const homes: string[] = [];
const traces = new TraceLog();
const logger = createLogger('debug', { write: (l: string) => traces.write(l) });

/** What startClaudeAgent and startHarnessAgent need of a test: a skip that says why, and the tear-down. */
function benchContext(skipped: (why: string) => void): TestContext {
  return {
    skip: (why?: string) => skipped(why ?? 'skipped'),
    after: (fn: () => Promise<void>) => cleanups.push(fn),
  } as unknown as TestContext;
}

/** Each harness's agent as its end-to-end tests start it: the subject, or why it was skipped. */
async function claudeSubject(): Promise<Subject[] | string> {
  let why = '';
  const agent = 'bench-claude';
  const c = await startClaudeAgent(
    benchContext((w) => (why = w)),
    { agent, script: () => ({ text: 'OK.' }), logger },
  );
  return c ? [{ label: 'claude', agent, d: c.d, token: c.token, requests: () => c.api.requests, replies: true }] : why;
}

async function cliSubject(harness: CliHarness): Promise<Subject[] | string> {
  let why = '';
  const agent = `bench-${harness}`;
  const h = await startHarnessAgent(
    benchContext((w) => (why = w)),
    { harness, agent, logger },
  );
  return h
    ? [{ label: harness, agent, d: h.d, token: h.token, requests: () => h.server.requests, replies: true }]
    : why;
}

/** A daemon with the two shell agents: bash (echoes, so the Enter is verified) and the soak's sink (echo off). */
async function shellSubjects(): Promise<Subject[] | string> {
  const d = await startTestDaemon({
    config: [
      'templates:',
      '  bash: { harness: shell, command: "PS1=\'$ \' exec bash --norc --noprofile" }',
      '  sink: { harness: shell, command: "stty -echo; exec tr : _" }',
    ].join('\n'),
    logger,
  });
  cleanups.push(() => d.stop());
  const token = d.daemon.operatorToken;
  const out: Subject[] = [];
  for (const [label, template] of [
    ['shell (bash)', 'bash'],
    ['shell (echo off)', 'sink'],
  ] as const) {
    const agent = `bench-${template}`;
    const r = await request(d.tcp, 'POST', '/api/v1/agents/spawn', { token, body: { template, name: agent } });
    if (r.status !== 201) throw new Error(`spawn ${agent}: ${r.text}`);
    out.push({ label, agent, d, token, requests: () => [], replies: false });
  }
  // The programs are up once their first screen is drawn.
  await sleep(1_000);
  return out;
}

/** What `--harnesses` can name, each with how its agents start. */
const SUBJECTS: Array<{ name: string; start: () => Promise<Subject[] | string> }> = [
  { name: 'shell', start: shellSubjects },
  { name: 'claude', start: claudeSubject },
  { name: 'codex', start: () => cliSubject('codex') },
  { name: 'opencode', start: () => cliSubject('opencode') },
];

/** The model's end of the turn that answered `marker`: the last tool-bearing request that carried it, answered. */
function turnEnd(requests: RecordedRequest[], marker: string): number | undefined {
  const ends = requests
    .filter((r) => Array.isArray(r.body?.tools) && r.body.tools.length > 0 && JSON.stringify(r.body).includes(marker))
    .map((r) => r.finished)
    .filter((f): f is number => f !== undefined);
  return ends.length ? Math.max(...ends) : undefined;
}

async function sendOne(s: Subject, stream: AppStream, marker: string): Promise<Sample> {
  const t0 = now();
  const r = await request(s.d.tcp, 'POST', `/api/v1/chat/${s.agent}/messages`, {
    token: s.token,
    body: { text: `please answer ${marker}` },
  });
  if (r.status !== 201) throw new Error(`send to ${s.agent}: ${r.status} ${r.text}`);
  const id: string = r.json.data.id;
  const settled = await stream.first(
    `${s.agent}'s delivery`,
    (e) => e.type === 'chat.updated' && e.data.message?.id === id && e.data.message.state !== 'pending',
  );
  if (settled.data.message!.state !== 'delivered')
    throw new Error(`${s.agent}: message ${settled.data.message!.state}`);
  const steps = (await waitTrace('delivery steps', s.agent)).ms;
  const typed = settled.at - t0;
  const traced = Object.values(steps).reduce((a, b) => a + b, 0);
  // The request, storing the message, its event and the stream: all that is not the route's own steps.
  const sample: Sample = { typed, steps: { ...steps, 'outside the route': typed - traced } };
  if (!s.replies) return sample;
  const reply = await stream.first(
    `${s.agent}'s reply`,
    (e) => e.type === 'chat.message' && e.data.message?.reply_to === id,
  );
  const trace = await waitTrace('reply steps', s.agent);
  const total = Object.values(trace.ms).reduce((a, b) => a + b, 0);
  // The Stop reached the daemon `total` ms before the reply's line was written (pino's time: whole ms).
  const stopAt = trace.time - total;
  const end = turnEnd(s.requests(), marker);
  sample.reply = {
    fromStop: reply.at - stopAt,
    fromTurnEnd: end === undefined ? NaN : reply.at - end,
    steps: {
      ...(end === undefined ? {} : { 'turn end → Stop': stopAt - end }),
      ...trace.ms,
      'to the app': reply.at - trace.time,
    },
  };
  return sample;
}

async function waitTrace(msg: string, agent: string): Promise<Trace> {
  for (let i = 0; i < 200; i++) {
    const t = traces.take(msg, agent);
    if (t) return t;
    await sleep(10);
  }
  throw new Error(`no "${msg}" line for ${agent}`);
}

async function measure(s: Subject): Promise<Sample[]> {
  homes.push(s.d.home);
  const stream = await AppStream.open(s.d.tcp.port!, s.token);
  try {
    await sendOne(s, stream, `${s.agent}-warm-up`);
    const samples: Sample[] = [];
    for (let i = 0; i < o.sends; i++) {
      await sleep(o['gap-ms']);
      samples.push(await sendOne(s, stream, `${s.agent}-${i}`));
    }
    return samples;
  } finally {
    stream.close();
  }
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const HOOK_RUNS = 10;

/**
 * What the harness's Stop hook costs before it reaches the daemon: `leo hook stop` as the harnesses run it, beside the
 * same hook through the CLI's command table (what bin/leo.js ran before) and a bare node, each with a hook input on
 * stdin and a socket that is not there (so each ends at its connect).
 */
function hookProcess(): string[][] {
  const env = { ...process.env, LEO_AGENT: 'bench', LEO_SOCKET: path.join(os.tmpdir(), 'leo-bench-no-daemon.sock') };
  const ways: Array<[string, string[]]> = [
    ['leo hook stop (bin/leo.js)', [path.join(ROOT, 'bin/leo.js'), 'hook', 'stop']],
    ['through the command table', [path.join(ROOT, 'dist/src/cli/main.js'), 'hook', 'stop']],
    ['bare node -e 0', ['-e', '0']],
  ];
  return ways.map(([label, args]) => {
    const xs: number[] = [];
    for (let i = 0; i < HOOK_RUNS; i++) {
      const t0 = now();
      spawnSync(process.execPath, args, { env, input: '{"hook_event_name":"Stop"}' });
      xs.push(now() - t0);
    }
    return [label, ...stats(xs)];
  });
}

/** n, p50, p90, p99, max. */
const stats = (xs: number[]) => [
  String(xs.length),
  fmt(quantile(xs, 0.5), 0),
  fmt(quantile(xs, 0.9), 0),
  fmt(quantile(xs, 0.99), 0),
  fmt(maxOf(xs), 0),
];

/** Per step: its median and its p90, in the order the steps first came. */
function breakdown(label: string, runs: Array<Record<string, number>>): string[][] {
  const steps = [...new Set(runs.flatMap((r) => Object.keys(r)))];
  return steps.map((step) => {
    const xs = runs.map((r) => r[step] ?? 0);
    return [label, step, fmt(quantile(xs, 0.5), 1), fmt(quantile(xs, 0.9), 1), fmt(maxOf(xs), 1)];
  });
}

function printSteps(title: string, of: Array<{ label: string; runs: Array<Record<string, number>> }>): void {
  console.log(`\n${title}`);
  table(
    ['harness', 'step', 'p50', 'p90', 'max'],
    of.flatMap((r) => breakdown(r.label, r.runs)),
  );
}

async function main(): Promise<void> {
  console.log(machineLine());
  const results: Array<{ label: string; samples: Sample[] }> = [];
  const started = Date.now();
  for (const h of o.harnesses.split(',').map((w) => w.trim())) {
    if (Date.now() - started > LAST_START_MS) {
      console.log(`(${h} left out: over ${LAST_START_MS / 60_000} minutes already)`);
      continue;
    }
    console.error(`latency: ${h}…`);
    try {
      const chosen = SUBJECTS.find((x) => x.name === h);
      if (!chosen) throw new Error(`no such harness here (${SUBJECTS.map((x) => x.name).join(', ')})`);
      const subjects = await chosen.start();
      if (typeof subjects === 'string') console.log(`(${h} skipped: ${subjects})`);
      else for (const s of subjects) results.push({ label: s.label, samples: await measure(s) });
    } catch (err) {
      // One harness failing (a CLI slow to start on a loaded machine) leaves the others' figures.
      console.log(`(${h} failed: ${(err as Error).message.split('\n')[0]})`);
    }
    // Each harness alone on the machine: the last one's daemon and CLI are gone before the next starts.
    while (cleanups.length) await cleanups.pop()!();
  }
  console.log(
    `\nsend → typed (POST → chat.updated delivered on the event stream), ms; load ${os.loadavg()[0]!.toFixed(2)}`,
  );
  table(
    ['harness', 'n', 'p50', 'p90', 'p99', 'max'],
    results.map((r) => [r.label, ...stats(r.samples.map((x) => x.typed))]),
  );
  printSteps(
    'where the delivery went (ms per step, from the delivery steps line)',
    results.map((r) => ({ label: r.label, runs: r.samples.map((x) => x.steps) })),
  );
  const replied = results.filter((r) => r.samples.some((x) => x.reply));
  if (!replied.length) return;
  console.log('\nStop → reply (to chat.message on the event stream), ms');
  table(
    ['harness', 'from', 'n', 'p50', 'p90', 'p99', 'max'],
    replied.flatMap((r) => {
      const rs = r.samples.flatMap((x) => (x.reply ? [x.reply] : []));
      return [
        [r.label, "model's turn end", ...stats(rs.map((x) => x.fromTurnEnd))],
        [r.label, 'Stop at the daemon', ...stats(rs.map((x) => x.fromStop))],
      ];
    }),
  );
  console.log(`\nthe Stop hook's own process, ${HOOK_RUNS} runs each, ms`);
  table(['hook', 'n', 'p50', 'p90', 'p99', 'max'], hookProcess());
  printSteps(
    'where the reply went (ms per step, from the reply steps line)',
    replied.map((r) => ({ label: r.label, runs: r.samples.flatMap((x) => (x.reply ? [x.reply.steps] : [])) })),
  );
}

runGuarded(
  BUDGET_MS,
  main,
  async () => {
    while (cleanups.length) await cleanups.pop()!().catch(() => undefined);
  },
  () => homes.forEach(killTmuxServer),
);
