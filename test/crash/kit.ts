import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Message } from '../../src/wire/message.js';
import { rfc3339 } from '../../src/core/time.js';
import { LEO_BIN } from '../helpers/cli.js';
import { killTmuxServer, paneText } from '../helpers/daemon.js';
import { request, type Response } from '../helpers/http.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';
import { openSqlite, type Database } from '../../src/store/sqlite.js';

export type { Message };

export { sleep };

export interface McpSession {
  /** One tool call: its structured answer, or a throw with the tool's error. */
  call(name: string, args: Record<string, unknown>): Promise<any>;
  close(): Promise<void>;
}

/** A seeded PRNG (mulberry32): the same seed makes the same choices, so a failing seed can be run again. */
export interface Rng {
  (): number;
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number;
  pick<T>(xs: readonly T[]): T;
}

export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (() => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }) as Rng;
  next.int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));
  next.pick = (xs) => xs[Math.floor(next() * xs.length)]!;
  return next;
}

/**
 * The seeds one scenario runs: LEO_CRASH_SEED replays exactly one; otherwise LEO_CRASH_SEEDS of them (default: the
 * bounded CI count) from LEO_CRASH_SEED_BASE, or from a random base so every run explores new ones.
 */
export function crashSeeds(ciCount: number): number[] {
  if (process.env.LEO_CRASH_SEED) return [Number(process.env.LEO_CRASH_SEED)];
  const n = Number(process.env.LEO_CRASH_SEEDS) || ciCount;
  const base = Number(process.env.LEO_CRASH_SEED_BASE) || 1 + Math.floor(Math.random() * 1_000_000);
  return Array.from({ length: n }, (_, i) => base + i);
}

/** What one seed reports: the SIGKILLs it survived, and counts of what happened that are summed over the seeds. */
export type Tally = { kills: number } & Record<string, number>;

/**
 * Runs a scenario once per seed, `parallel` seeds at a time (each in its own home), and reports how many kills were
 * survived, with the scenario's other counts. A failure names its seed and the command that replays it.
 */
export async function runSeeds(
  t: TestContext,
  scenario: string,
  opts: { ciSeeds: number; parallel: number; file: string },
  one: (seed: number, rng: Rng) => Promise<Tally>,
): Promise<void> {
  const seeds = crashSeeds(opts.ciSeeds);
  const sums: Record<string, number> = { kills: 0 };
  let done = 0;
  let failed: number | null = null;
  const queue = [...seeds];
  const worker = async () => {
    for (let seed = queue.shift(); seed !== undefined; seed = queue.shift()) {
      try {
        const tally = await one(seed, seededRng(seed));
        for (const [k, n] of Object.entries(tally)) sums[k] = (sums[k] ?? 0) + n;
        done++;
      } catch (err) {
        queue.length = 0;
        failed = seed;
        throw amend(
          err,
          `crash ${scenario}: seed ${seed} failed (replay: LEO_CRASH_SEED=${seed} node scripts/run-tests.mjs ` +
            `${opts.file})\n`,
        );
      }
    }
  };
  const started = Date.now();
  try {
    await Promise.all(Array.from({ length: Math.min(opts.parallel, seeds.length) }, worker));
  } finally {
    const { kills, ...counts } = sums;
    const detail = Object.entries(counts).map(([k, n]) => `${k} ${n}`);
    const outcome =
      failed === null ? `${kills}/${kills} kills survived` : `${kills} kills survived, then seed ${failed} failed`;
    t.diagnostic(
      `crash ${scenario}: ${outcome} over ${done}/${seeds.length} seeds (seeds ${seeds[0]}–${seeds.at(-1)}; ` +
        `${[...detail, `${((Date.now() - started) / 1000).toFixed(1)} s`].join(', ')})`,
    );
  }
}

/** Adds context to an error's message, in its stack too (the reporter prints the stack). */
export function amend(err: unknown, before: string, after = ''): Error {
  const e = err instanceof Error ? err : new Error(String(err));
  const old = e.message;
  e.message = `${before}${old}${after}`;
  if (e.stack) e.stack = e.stack.replace(old, () => e.message);
  return e;
}

/**
 * A throwaway LEO_HOME with the real `leo daemon` as a child process that the test kills with SIGKILL. Agents run a
 * sink script in Leo's private tmux server, which outlives each kill like it would in the field.
 */
export class CrashHome {
  readonly home: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly removeHome: () => void;
  private child: ChildProcess | null = null;
  private out = '';
  port = 0;
  kills = 0;
  /** [killed at, ready again at] for each time the daemon was down. */
  readonly downtimes: [number, number][] = [];
  private downSince: number | null = null;

  /** Runs `fn` in a new home; a failure carries the daemon's last output; the home and its tmux server go after. */
  static async use<T>(fn: (h: CrashHome) => Promise<T>): Promise<T> {
    const h = new CrashHome();
    try {
      return await fn(h);
    } catch (err) {
      throw amend(err, '', `\n--- daemon output (tail) ---\n${h.out.slice(-4000)}`);
    } finally {
      await h.cleanup();
    }
  }

  /** Its leo.yaml has one template, `sink`, for every agent of the scenarios. */
  constructor() {
    const t = makeTempHome();
    this.home = t.home;
    this.env = t.env;
    this.removeHome = t.cleanup;
    fs.writeFileSync(
      path.join(this.home, 'leo.yaml'),
      testConfig(sinkTemplate(this.home)).replace('level: warn', 'level: info'),
    );
  }

  /** Starts `leo daemon` and resolves once it is ready. */
  async start(): Promise<void> {
    await this.launch();
  }

  /** Starts `leo daemon` and SIGKILLs it `ms` later, whether it became ready by then or not. */
  async startAndKill(ms: number): Promise<void> {
    const ready = this.launch().catch(() => undefined);
    await Promise.race([ready, sleep(ms)]);
    await sleep(0);
    await this.kill();
  }

  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
    this.downSince ??= Date.now();
    this.kills++;
  }

  /** Whether `at` fell while the daemon was down. */
  wasDownAt(at: number): boolean {
    return this.downtimes.some(([from, to]) => from <= at && at < to);
  }

  get operatorToken(): string {
    return fs.readFileSync(path.join(this.home, 'state', 'api.token'), 'utf8').trim();
  }

  get agentToken(): string {
    return fs.readFileSync(path.join(this.home, 'state', 'agent.token'), 'utf8').trim();
  }

  op(method: string, p: string, body?: unknown): Promise<Response> {
    return request({ port: this.port }, method, p, { token: this.operatorToken, ...(body ? { body } : {}) });
  }

  /** One of the agent tools as plain HTTP (`/api/agent/{agent}/chat/{action}`), with the agent token. */
  agentOp(agent: string, action: string, body: unknown): Promise<Response> {
    return request({ port: this.port }, 'POST', `/api/agent/${agent}/chat/${action}`, { token: this.agentToken, body });
  }

  async spawnAgent(name: string, template: string): Promise<void> {
    const r = await this.op('POST', '/api/v1/agents/spawn', { template, name });
    if (r.status !== 201) throw new Error(`spawn ${name}: ${r.status} ${r.text}`);
    await sinkReady(this.home, name);
  }

  /** A whole thread, oldest first. */
  thread(agent: string): Promise<Message[]> {
    return readThread((p) => this.op('GET', p), agent);
  }

  /** A session of Leo's MCP tools as `agent`, held open the way a supervised agent holds one. */
  async mcpSession(agent: string): Promise<McpSession> {
    const c = new Client({ name: 'crash-suite', version: '1' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${this.port}/api/agent/${agent}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${this.agentToken}` } },
      }),
    );
    return {
      async call(name, args) {
        const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any };
        if (r.isError) throw new Error(`${name}: ${JSON.stringify(r)}`);
        return r.structuredContent;
      },
      close: () => c.close(),
    };
  }

  /** Calls one of Leo's MCP tools as `agent`, the way a supervised agent does. */
  async mcpTool(agent: string, name: string, args: Record<string, unknown>): Promise<any> {
    const session = await this.mcpSession(agent);
    try {
      return await session.call(name, args);
    } finally {
      await session.close();
    }
  }

  /** Every line the agent's sink read. */
  linesRead(agent: string): string[] {
    return linesRead(this.home, agent);
  }

  linesReadShowing(agent: string, texts: readonly string[]): Promise<string[]> {
    return linesReadShowing(this.home, agent, texts);
  }

  /** chat.db read-only, beside the live daemon (WAL), for what the wire does not show. */
  readDb<T>(read: (db: Database) => T): T {
    const db = openSqlite(path.join(this.home, 'state', 'chat.db'), { readonly: true });
    try {
      return read(db);
    } finally {
      db.close();
    }
  }

  /**
   * While the daemon is down: moves every message's time `ms` into the past, as if the daemon had stayed down that
   * much longer (what a restart judges a leftover's age by).
   */
  backdateMessages(ms: number): void {
    if (this.child) throw new Error('backdate only while the daemon is down');
    const db = openSqlite(path.join(this.home, 'state', 'chat.db'));
    try {
      const move = db.prepare('UPDATE messages SET ts = ? WHERE id = ?');
      const rows = db.prepare('SELECT id, ts FROM messages').all() as { id: string; ts: string }[];
      db.transaction(() => {
        for (const r of rows) move.run(rfc3339(Date.parse(r.ts) - ms), r.id);
      })();
    } finally {
      db.close();
    }
  }

  async cleanup(): Promise<void> {
    await this.kill();
    killTmuxServer(this.home);
    this.removeHome();
  }

  private launch(): Promise<void> {
    const child = spawn(process.execPath, [LEO_BIN, 'daemon'], { env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.out = '';
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('daemon did not become ready in 20 s')), 20_000);
      const onData = (chunk: Buffer) => {
        this.out = (this.out + chunk.toString()).slice(-32_768);
        const m = /"listen":"[^"]*:(\d+)".*"leo daemon ready"/.exec(this.out);
        if (m && this.child === child) {
          clearTimeout(timer);
          this.port = Number(m[1]);
          if (this.downSince !== null) this.downtimes.push([this.downSince, Date.now()]);
          this.downSince = null;
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`daemon exited (${code ?? signal}) before it was ready`));
      });
    });
  }
}

/**
 * Writes the sink script into `dir` and returns the leo.yaml section of its template, `sink`: a shell agent with no
 * echo, so what its pane shows is only what it read, one `GOT` line per line read.
 */
export function sinkTemplate(dir: string): string {
  const sink = path.join(dir, 'sink.sh');
  fs.writeFileSync(sink, `stty -echo\necho READY\nwhile IFS= read -r line; do printf 'GOT %s\\n' "$line"; done\n`);
  return `templates:\n  sink: { harness: shell, command: "exec sh ${sink}" }\n`;
}

/** Resolves once the sink `agent` in the tmux server of `home` is reading. */
export function sinkReady(home: string, agent: string): Promise<unknown> {
  return until(`${agent}'s sink to start`, () => paneText(home, agent).includes('READY'), 10_000);
}

/** Every line a sink agent of `home` read, from its pane with the scrollback. */
export function linesRead(home: string, agent: string): string[] {
  return paneText(home, agent, 100_000)
    .split('\n')
    .filter((l) => l.startsWith('GOT '));
}

/**
 * linesRead once the sink has printed a line holding each of `texts`, or after `timeoutMs` (the checks that follow
 * then name what is missing): a message is `delivered` once its Enter is pressed, and the sink prints it a moment later.
 */
export async function linesReadShowing(
  home: string,
  agent: string,
  texts: readonly string[],
  timeoutMs = 5_000,
): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = linesRead(home, agent);
    if (texts.every((t) => lines.some((l) => l.includes(t))) || Date.now() >= deadline) return lines;
    await sleep(100);
  }
}

/** A whole thread, oldest first, paged (a burst bigger than one page is read completely) with `get`. */
export async function readThread(get: (path: string) => Promise<Response>, agent: string): Promise<Message[]> {
  const all: Message[] = [];
  let before: string | null = null;
  for (;;) {
    const q: string = before ? `&before=${before}` : '';
    const r = await get(`/api/v1/chat/${agent}/messages?limit=500${q}`);
    if (r.status !== 200) throw new Error(`history of ${agent}: ${r.status} ${r.text}`);
    all.unshift(...(r.json.data.messages as Message[]));
    before = r.json.data.older;
    if (!before) return all;
  }
}

/** How many times each marker appears in `lines`. */
export function countMarkers(lines: readonly string[], pattern: RegExp): Map<string, number> {
  const counts = new Map<string, number>();
  for (const l of lines) for (const m of l.matchAll(pattern)) counts.set(m[0], (counts.get(m[0]) ?? 0) + 1);
  return counts;
}
