/**
 * The soak: the real daemon (`leo daemon`, a child process in a throwaway LEO_HOME) under steady mixed load for a
 * while, sampled as it goes. The load: N subscribers on /api/v1/events held by the fan-out benchmark's load generator
 * (a process of its own), text sends into real tmux agents at a fixed rate, voice notes through the real ffmpeg and
 * whisper-cli, the activity sweep over the whole fleet (every 2 s, as always), a /api/v1/state poll, and short-lived
 * SSE connections coming and going. Afterwards it waits for every send to settle, checks that every subscriber got
 * every event and that every acknowledged send is in its thread exactly once, disconnects everyone and samples again,
 * then stops the daemon with SIGTERM and reads its log. checks.ts turns the result into pass/fail.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnDaemon, waitForExit } from '../../test/helpers/cli.js';
import { killTmuxServer } from '../../test/helpers/daemon.js';
import { request, type Target } from '../../test/helpers/http.js';
import { SseClient } from '../../test/helpers/sse-client.js';
import { until } from '../../test/helpers/wait.js';
import { makeTempHome } from '../../test/helpers/temp-home.js';
import { writeWeightlessModel } from '../../test/helpers/whisper-model.js';
import { Generator } from '../fanout/generator.js';
import { marker, sharedNowMs } from '../fanout/protocol.js';
import { machineLine } from '../lib/report.js';
import { HeapInspector, INSPECTOR_NOISE } from './inspector.js';
import { Ledger, seqOf } from './ledger.js';
import { fdGrowth, fdKinds, metric, prober, sumSeries, type Sample } from './probe.js';

export interface SoakOptions {
  /** How long the load runs. */
  seconds: number;
  subscribers: number;
  /** Text sends per second, spread over the agents in turn. */
  rate: number;
  agents: number;
  /** Seconds between voice notes; 0 sends none. */
  noteEvery: number;
  sampleEvery: number;
  /** Short-lived SSE connections opened per second, each reading its hello and hanging up a second later. */
  churn: number;
  /** Aborting stops the run: it cleans up and rejects. */
  signal?: AbortSignal;
  progress?(line: string): void;
}

export interface SoakResult {
  options: Omit<SoakOptions, 'signal' | 'progress'>;
  machine: string;
  loadSeconds: number;
  /** Before any subscriber, after the agents started. */
  baseline: Sample;
  /** During the load, `t` in seconds from its start. */
  samples: Sample[];
  /** Once every send had settled, subscribers still connected. */
  drained: Sample;
  /** After every subscriber disconnected. */
  after: Sample;
  /** The V8 heap right after a full collection, MB: NaN where the inspector could not be reached. */
  liveHeapMb: { baseline: number; drained: number; after: number };
  /** Descriptors open after the disconnect that were not at the baseline, by kind. */
  fdGrowth: string;
  /** `skipped`: sends that fell due while the daemon was behind (see the sender). */
  sends: ReturnType<Ledger['summary']>['sends'] & { ratePerSec: number; skipped: number };
  notes: ReturnType<Ledger['summary']>['notes'] & { sent: number };
  history: {
    acked: number;
    found: number;
    missing: number;
    duplicates: number;
    notDelivered: number;
    /** Sends in a thread whose request never got its 201 (or got another id). */
    unacknowledged: number;
  };
  sse: {
    subscribers: number;
    connected: number;
    connectFailed: number;
    connectError?: string;
    /** Load-generator streams that ended before we closed them. */
    closedEarly: number;
    delivered: number;
    expected: number;
    referenceEvents: number;
    referenceGaps: number;
    referenceEnded: boolean;
    eventsByType: Record<string, number>;
    churnOpened: number;
    /** Short-lived connections that failed, by why: an error, a status, or no hello in time. */
    churnFailures: Record<string, number>;
    slowConsumersDropped: number;
  };
  httpErrors: Record<string, number>;
  /** Requests the daemon itself answered with 4xx/5xx, from its own counter. */
  daemonHttpErrors: number;
  systemNotes: number;
  /** Voice notes held for having no words (each with its system note), then sent anyway. */
  heldNotes: number;
  /** Pool tasks completed during the load: activity sweeps and transcriptions. */
  poolTasks: number;
  sweepsExpected: number;
  daemonExit: number | null;
  /** Log lines at warn or above, and anything on its output that is not a log line. */
  logProblems: string[];
}

const SWEEP_INTERVAL_S = 2;
const STATE_POLL_MS = 5_000;
/** Sends in flight at once: beyond it the sender falls behind, which the achieved rate shows. */
const MAX_INFLIGHT = 32;
/** A delivery holds its agent ~0.6 s (paste, settle, Enter, check): one delivering and one waiting is keeping up. */
const MAX_BACKLOG_PER_AGENT = 2;
const SETTLE_TIMEOUT_MS = 60_000;
const CHURN_HELLO_MS = 5_000;
const NOTE_TEXT = 'Move the stand-up to ten and tell the team the build is green.';

function config(model: string): string {
  // The agents echo nothing they are typed (stty -echo) and print each line with ':' swapped for '_', so a pane shows
  // every message once and never the load generator's marker: pane lines feed agent_activity events, and a marker
  // there would count as one more (late) delivery.
  // Its subscribers all use the operator token: the stream caps (32 per token, 256 in all) and the connection caps
  // (64 per token, half the cap at most: 1 000 subscribers and the runner's own requests need a cap over 2 000) are
  // lifted, as the fan-out benchmark lifts them.
  return [
    'web:',
    '  listen: 127.0.0.1:0',
    '  max_connections: 4000',
    '  max_connections_per_token: 5000',
    '  sse_max_subscribers: 5000',
    '  sse_max_per_token: 5000',
    'log:',
    '  level: info',
    'chat:',
    `  whisper_model: ${model}`,
    'templates:',
    '  soak: { harness: shell, command: "stty -echo; exec tr : _" }',
    '',
  ].join('\n');
}

function noteAudio(dir: string): Buffer {
  const wav = path.join(dir, 'note.wav');
  const m4a = path.join(dir, 'note.m4a');
  execFileSync('espeak-ng', ['-w', wav, NOTE_TEXT], { stdio: 'pipe' });
  execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, '-c:a', 'aac', m4a], { stdio: 'pipe' });
  return fs.readFileSync(m4a);
}

/**
 * Pino lines at warn (40) or above, and any line that is not pino's JSON (a crash trace, a Node warning), less Node's
 * own notices of the inspector the soak opened.
 */
export function logProblems(output: string): string[] {
  return output
    .split('\n')
    .filter((l) => l.trim() && !INSPECTOR_NOISE.test(l))
    .filter((l) => {
      try {
        return (JSON.parse(l) as { level?: number }).level! >= 40;
      } catch {
        return true;
      }
    });
}

/**
 * Runs `tick` every `ms` (and at once if `now`) until stopped; a tick still running when the next is due is skipped,
 * never stacked.
 */
function every(ms: number, tick: () => Promise<unknown>, now = false): { stop(): Promise<void> } {
  let running: Promise<unknown> | null = null;
  const run = () => {
    if (!running) running = tick().finally(() => (running = null));
  };
  const timer = setInterval(run, ms);
  if (now) run();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}

export async function runSoak(o: SoakOptions): Promise<SoakResult> {
  const say = o.progress ?? (() => {});
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-soak-'));
  const home = makeTempHome(config(writeWeightlessModel(path.join(scratch, 'ggml-weightless.bin'))));
  const audio = o.noteEvery > 0 ? noteAudio(scratch) : null;
  let daemon: ChildProcess | null = null;
  let gen: Generator | null = null;
  let ref: SseClient | null = null;
  let inspector: HeapInspector | null = null;
  const churners = new Set<SseClient>();
  try {
    const started = await spawnDaemon(home.env);
    daemon = started.child;
    const pid = daemon.pid!;
    const tcp: Target = { port: started.port };
    const token = fs.readFileSync(path.join(home.home, 'state', 'api.token'), 'utf8').trim();
    const op = (method: string, p: string, body?: unknown) => request(tcp, method, p, { token, body });
    const metricsText = async () => (await op('GET', '/metrics')).text;
    const tmuxSocket = path.join(home.home, 'state', 'tmux.sock');
    const ledger = new Ledger();
    const probe = prober(pid, tmuxSocket, metricsText);
    const sample = async (t: number): Promise<Sample> => ({
      t,
      ...(await probe()),
      backlog: ledger.backlog(),
    });
    say(`daemon pid ${pid} on 127.0.0.1:${started.port}, home ${home.home}`);

    const spawnStarted = performance.now();
    const agents = Array.from({ length: o.agents }, (_, i) => `soak-${i}`);
    for (const name of agents) {
      const r = await op('POST', '/api/v1/agents/spawn', { template: 'soak', name });
      if (r.status !== 201) throw new Error(`spawning ${name}: ${r.status} ${r.text}`);
    }
    // Opened before the baseline, so its thread, listening socket and connection count there as well as after.
    inspector = await HeapInspector.open(pid);
    const liveHeap = async () => (inspector ? await inspector.liveHeapMb() : NaN);
    await sleep(1_000);
    const liveHeapMb = { baseline: await liveHeap(), drained: NaN, after: NaN };
    const baseline = await sample(0);
    const baselineFds = fdKinds(pid);
    say(
      `${o.agents} agents started in ${((performance.now() - spawnStarted) / 1000).toFixed(1)} s; ` +
        `baseline ${fmtSample(baseline)}`,
    );

    ref = await SseClient.open(tcp, '/api/v1/events', token);
    await ref.waitFor(1);
    const reference = ref;
    const drainReference = () => {
      const now = performance.now();
      for (const e of reference.events.splice(0)) ledger.onEvent(e, now);
    };
    gen = await Generator.start();
    const opened = await gen.request(
      {
        cmd: 'open',
        group: 'soak',
        host: '127.0.0.1',
        port: started.port,
        path: '/api/v1/events',
        headers: { authorization: `Bearer ${token}` },
        count: o.subscribers,
      },
      'opened',
    );
    say(`${opened.connected}/${o.subscribers} subscribers connected in ${(opened.ms / 1000).toFixed(1)} s`);
    const poolBefore = metric(await metricsText(), 'leo_pool_tasks_completed');

    // The load.
    const t0 = performance.now();
    const elapsedS = () => (performance.now() - t0) / 1000;
    const loadMs = o.seconds * 1000;
    const samples: Sample[] = [];
    const inflight = new Set<Promise<unknown>>();
    const track = (p: Promise<unknown>) => {
      inflight.add(p);
      void p.finally(() => inflight.delete(p));
    };
    let issued = 0;
    let ended = false;
    const stopLoad = () => (ended = true);
    o.signal?.addEventListener('abort', stopLoad);

    const send = (agent: string) => {
      const seq = ledger.startSend(performance.now());
      track(
        op('POST', `/api/v1/chat/${agent}/messages`, { text: `soak ${marker(seq, sharedNowMs())}` }).then(
          (r) => ledger.ackSend(seq, r.status, r.json?.data?.id, performance.now()),
          () => ledger.ackSend(seq, 0, undefined, performance.now()),
        ),
      );
    };
    // Paced against the clock, but closed-loop: while the daemon has MAX_BACKLOG_PER_AGENT sends per agent not yet
    // delivered, or MAX_INFLIGHT requests unanswered, the sends that fall due are skipped, not queued. A machine that
    // cannot keep up then shows as a lower achieved rate instead of a backlog (and memory) growing without end, which
    // would hide a leak behind the pile-up.
    let slots = 0;
    let skipped = 0;
    const maxBacklog = MAX_BACKLOG_PER_AGENT * o.agents;
    const sender = setInterval(() => {
      if (ended) return;
      const due = Math.floor((o.rate * Math.min(performance.now() - t0, loadMs)) / 1000);
      for (; slots < due; slots++) {
        if (inflight.size >= MAX_INFLIGHT || ledger.backlog() >= maxBacklog) skipped++;
        else send(agents[issued++ % agents.length]!);
      }
    }, 10);

    let notesSent = 0;
    const noteLoop =
      audio &&
      every(
        o.noteEvery * 1000,
        async () => {
          if (ended) return;
          const agent = agents[notesSent++ % agents.length]!;
          const sentAt = performance.now();
          const up = await request(tcp, 'POST', `/api/v1/chat/uploads?filename=note.m4a&agent=${agent}`, {
            token,
            rawBody: audio,
            headers: { 'content-type': 'audio/mp4' },
          }).catch(() => null);
          if (up?.status !== 201) return ledger.httpError('upload', up?.status ?? 0);
          const r = await op('POST', `/api/v1/chat/${agent}/messages`, { attachments: [up.json.data.id] }).catch(
            () => null,
          );
          if (r?.status === 201) ledger.ackNote(r.json.data.id, sentAt, performance.now());
          else ledger.httpError('voice note', r?.status ?? 0);
        },
        true,
      );

    // The test model hears no words in any note, so each is held; the owner sends it anyway, and it is delivered as
    // the audio path. Kept going until the deliveries have settled, so a note held late is still let go.
    const releaseLoop =
      audio &&
      every(500, async () => {
        for (const held of ledger.takeHeld()) {
          const r = await op('POST', `/api/v1/chat/${held.agent}/messages/${held.id}/send-anyway`).catch(() => null);
          if (r?.status !== 200) ledger.httpError('send anyway', r?.status ?? 0);
        }
      });

    let churnOpened = 0;
    const churnFailures = new Map<string, number>();
    const churnLoop =
      o.churn > 0 &&
      every(1000 / o.churn, async () => {
        if (ended) return;
        let c: SseClient | null = null;
        try {
          c = await SseClient.open(tcp, '/api/v1/events', token);
          churners.add(c);
          await c.waitFor(1, CHURN_HELLO_MS);
          if (c.status !== 200 || c.events[0]?.event !== 'hello') throw new Error(`HTTP ${c.status}`);
          churnOpened++;
          const opened = c;
          setTimeout(() => {
            opened.close();
            churners.delete(opened);
          }, 1000);
        } catch (err) {
          c?.close();
          if (c) churners.delete(c);
          const why = /timed out/.test((err as Error).message)
            ? `no hello within ${CHURN_HELLO_MS / 1000} s`
            : (err as Error).message;
          churnFailures.set(why, (churnFailures.get(why) ?? 0) + 1);
        }
      });

    const statePoll = every(STATE_POLL_MS, async () => {
      const r = await op('GET', '/api/v1/state').catch(() => null);
      if (r?.status !== 200) ledger.httpError('state', r?.status ?? 0);
    });
    const referenceDrain = setInterval(drainReference, 20);
    let lastReport = 0;
    const sampler = every(o.sampleEvery * 1000, async () => {
      const s = await sample(elapsedS());
      samples.push(s);
      if (s.t - lastReport >= 30 || samples.length === 1) {
        lastReport = s.t;
        say(`${s.t.toFixed(0)} s: ${issued} sent, ${fmtSample(s)}`);
      }
    });

    while (!ended && performance.now() - t0 < loadMs) await sleep(100);
    ended = true;
    o.signal?.removeEventListener('abort', stopLoad);
    o.signal?.throwIfAborted();
    const loadSeconds = elapsedS();
    clearInterval(sender);
    await Promise.all([noteLoop?.stop(), churnLoop && churnLoop.stop(), statePoll.stop()]);
    while (inflight.size) await Promise.all([...inflight]);
    say(`load stopped after ${loadSeconds.toFixed(0)} s; waiting for ${ledger.backlog()} deliveries to settle`);

    const settleDeadline = performance.now() + SETTLE_TIMEOUT_MS;
    await sampler.stop();
    while (ledger.backlog() > 0 && performance.now() < settleDeadline) await sleep(200);
    await releaseLoop?.stop();
    clearInterval(referenceDrain);
    await sleep(500);
    drainReference();
    const poolTasks = metric(await metricsText(), 'leo_pool_tasks_completed') - poolBefore;

    // Every subscriber should have counted what the reference counted; give the last frames a moment to arrive.
    const expected = ledger.markers * opened.connected;
    let progress = await gen.request({ cmd: 'progress' }, 'progress');
    for (let i = 0; i < 50 && (progress.groups.soak?.delivered ?? 0) < expected; i++) {
      await sleep(200);
      progress = await gen.request({ cmd: 'progress' }, 'progress');
    }
    const group = progress.groups.soak ?? { open: 0, closed: 0, delivered: 0 };
    const drained = await sample(elapsedS());
    liveHeapMb.drained = await liveHeap();
    const beforeClose = await metricsText();
    say(`settled; drained ${fmtSample(drained)}`);

    await gen.request({ cmd: 'close' }, 'closed');
    // This process's idle kept-alive connections are descriptors in the daemon too, and not the daemon's to close.
    http.globalAgent.destroy();
    const referenceEnded = reference.ended;
    reference.close();
    for (const c of churners) c.close();
    // Sockets close asynchronously on the daemon's side: wait for its streams to be gone, then for the descriptor
    // count to stop falling, before judging.
    await until(
      'the SSE streams to close',
      async () => metric(await metricsText(), 'leo_sse_subscribers') === 0,
      15_000,
      250,
    );
    // Judged at the quietest moment of a few seconds: a sweep's tmux child or a pool task in flight holds a socket and
    // pipes for milliseconds, and one unlucky snapshot of them is not a leak (seen once in CI: +3 socket, +2 pipe,
    // /dev/null, an eventfd and an epoll). What is still there at the lowest count is.
    const total = (kinds: Record<string, number>) => Object.values(kinds).reduce((n, k) => n + k, 0);
    let fdsAfter = fdKinds(pid);
    for (const end = Date.now() + 5_000; Date.now() < end && total(fdsAfter) > baseline.fds;) {
      await sleep(100);
      const now = fdKinds(pid);
      if (total(now) < total(fdsAfter)) fdsAfter = now;
    }
    const after = { ...(await sample(elapsedS())), fds: total(fdsAfter) };
    liveHeapMb.after = await liveHeap();
    say(`subscribers gone: ${fmtSample(after)}`);

    const history = await checkHistory(op, agents, ledger.acknowledged());
    const daemonHttpErrors = sumSeries(
      await metricsText(),
      'leo_http_requests_total',
      (labels) => Number(/status="(\d+)"/.exec(labels)?.[1]) >= 400,
    );
    inspector?.close();
    daemon.kill('SIGTERM');
    const daemonExit = await waitForExit(daemon, 30_000).catch(() => null);

    const summary = ledger.summary();
    return {
      options: {
        seconds: o.seconds,
        subscribers: o.subscribers,
        rate: o.rate,
        agents: o.agents,
        noteEvery: o.noteEvery,
        sampleEvery: o.sampleEvery,
        churn: o.churn,
      },
      machine: machineLine(),
      loadSeconds,
      baseline,
      samples,
      drained,
      after,
      fdGrowth: fdGrowth(baselineFds, fdsAfter),
      liveHeapMb,
      sends: { ...summary.sends, ratePerSec: summary.sends.attempted / loadSeconds, skipped },
      notes: { ...summary.notes, sent: notesSent },
      history,
      sse: {
        subscribers: o.subscribers,
        connected: opened.connected,
        connectFailed: opened.failed,
        ...(opened.error ? { connectError: opened.error } : {}),
        closedEarly: group.closed,
        delivered: group.delivered,
        expected,
        referenceEvents: [...ledger.eventsByType.values()].reduce((a, b) => a + b, 0),
        referenceGaps: ledger.gaps,
        referenceEnded,
        eventsByType: Object.fromEntries(ledger.eventsByType),
        churnOpened,
        churnFailures: Object.fromEntries(churnFailures),
        slowConsumersDropped: metric(beforeClose, 'leo_sse_slow_consumers_dropped_total'),
      },
      httpErrors: Object.fromEntries(ledger.httpErrors),
      daemonHttpErrors,
      systemNotes: ledger.systemNotes,
      heldNotes: ledger.heldNotes,
      poolTasks,
      sweepsExpected: Math.floor(loadSeconds / SWEEP_INTERVAL_S),
      daemonExit,
      logProblems: logProblems(started.output()),
    };
  } finally {
    inspector?.close();
    ref?.close();
    for (const c of churners) c.close();
    gen?.kill();
    if (daemon && daemon.exitCode === null && daemon.signalCode === null) daemon.kill('SIGKILL');
    killTmuxServer(home.home);
    home.cleanup();
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Reads every thread from the start and matches its inbound text messages to the acknowledged sends by marker. */
async function checkHistory(
  op: (method: string, p: string) => Promise<{ status: number; json: any }>,
  agents: string[],
  acked: Map<string, number>,
): Promise<SoakResult['history']> {
  const seen = new Map<number, number>();
  let notDelivered = 0;
  let unacknowledged = 0;
  for (const agent of agents) {
    let after: string | null = '0';
    while (after) {
      const r = await op('GET', `/api/v1/chat/${agent}/messages?after=${after}&limit=500`);
      if (r.status !== 200) throw new Error(`history of ${agent}: ${r.status}`);
      const page = r.json.data as { messages: { id: string; kind: string; text: string; state: string }[] };
      for (const m of page.messages) {
        const seq = m.kind === 'text' ? seqOf(m.text) : null;
        if (seq === null) continue;
        seen.set(seq, (seen.get(seq) ?? 0) + 1);
        if (acked.get(m.id) !== seq) unacknowledged++;
        if (m.state !== 'delivered') notDelivered++;
      }
      after = r.json.data.newer;
    }
  }
  let missing = 0;
  for (const seq of acked.values()) if (!seen.has(seq)) missing++;
  return {
    acked: acked.size,
    found: seen.size,
    missing,
    duplicates: [...seen.values()].filter((n) => n > 1).length,
    notDelivered,
    unacknowledged,
  };
}

export function fmtSample(s: Sample): string {
  return (
    `RSS ${s.rssMb.toFixed(0)} MB, heap ${s.heapUsedMb.toFixed(0)} MB, fds ${s.fds}, handles ${s.activeHandles}, ` +
    `threads ${s.threads}, children ${s.children}, SSE ${s.sseSubscribers}, panes ${s.tmuxPanes}, ` +
    `buffers ${s.tmuxBuffers}, backlog ${s.backlog}, loop p99 ${s.loopP99Ms.toFixed(0)} ms, ` +
    `CPU ${s.cpuPct.toFixed(0)}%, machine ${s.machinePct.toFixed(0)}%`
  );
}
