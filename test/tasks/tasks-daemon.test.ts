// Scheduled tasks in the real daemon (observability-api.md: Task, TaskRun, recent_runs, task-run ingress;
// leo-chat.md: task owners and failure cards): cron firings on the daemon's ManualClock start real `shell` processes,
// announce task_run_* events, keep a log per run, and post failure cards; `leo run` does the same from its own process.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { nextRunAt } from '../../src/tasks/task-view.js';
import { StateSnapshot } from '../../src/wire/fleet.js';
import { rfc3339 } from '../../src/core/time.js';
import { runLeoAsync } from '../helpers/cli.js';
import { caller, killTmuxServer } from '../helpers/daemon.js';
import { request, type Target } from '../helpers/http.js';
import { SseClient, type SseMessage } from '../helpers/sse-client.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';

const RUN_FIELDS = [
  'duration_ms',
  'ended_at',
  'error',
  'harness',
  'id',
  'model',
  'started_at',
  'status',
  'task',
  'workspace',
];

function config(workspace: string): string {
  return testConfig(`
templates:
  cat: { harness: shell, command: "exec cat" }
tasks:
  tick:
    schedule: "*/5 * * * *"
    timezone: UTC
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo "hello $LEO_TASK $LEO_RUN_ID"; echo "prompt: $LEO_TASK_PROMPT"; pwd'
    prompt: say hello
  boom:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo "it broke" >&2; exit 3'
    prompt: fail
    attempts: 2
    notify_on_fail: true
    owner: den
  quiet-boom:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'exit 4'
    prompt: fail quietly
  orphan:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'exit 5'
    prompt: fail for nobody
    notify_on_fail: true
    owner: ghost
  homeless:
    schedule: "0 0 1 1 *"
    harness: shell
    command: 'pwd; echo "home run $LEO_RUN_ID"'
    prompt: run where Leo puts you
  unenv:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo never'
    prompt: needs an environment nobody defined
    environments: [nope]
    notify_on_fail: true
    owner: den
  keeper:
    schedule: "0 0 1 1 *"
    runtime: persistent
    template: cat
    prompt: keep going
  slow:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'sleep 30'
    prompt: take long
    notify_on_fail: true
    owner: den
`);
}

describe('scheduled tasks in the daemon', () => {
  const t = makeTempHome();
  const workspace = path.join(t.home, 'work');
  let clock: ManualClock;
  let daemon: Daemon;
  const tcp: Target = {};
  let sse: SseClient;
  const { op, get } = caller(tcp, () => daemon.operatorToken);
  const runEvents = (runId: string) =>
    sse.events.filter((e: SseMessage) => e.event.startsWith('task_run_') && e.data.run?.id === runId);
  const thread = async (agent: string) =>
    (await op('GET', `/api/v1/chat/${agent}/messages?limit=100`)).json.data?.messages ?? [];
  const finished = (runId: string) =>
    until('the run to finish', () => runEvents(runId).find((e) => e.event !== 'task_run_started'), 20_000, 50);
  const start = async () => {
    daemon = await startDaemon({ env: t.env, clock, logger: createLogger('warn') });
    tcp.port = daemon.port;
    sse = await SseClient.open(tcp, '/api/v1/events', daemon.operatorToken);
    await sse.waitFor(1);
  };

  before(async () => {
    fs.mkdirSync(workspace);
    fs.writeFileSync(path.join(t.home, 'leo.yaml'), config(workspace));
    clock = new ManualClock(Date.now());
    await start();
    assert.equal((await op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
  });
  after(async () => {
    sse.close();
    await daemon.close();
    killTmuxServer(t.home);
    t.cleanup();
  });

  it('cron fires a shell oneshot task: its run events carry identical fields, recent_runs, last_run_at, its log', async () => {
    const due = nextRunAt('*/5 * * * *', 'UTC', clock.now())!;
    const before = (await get('/api/v1/state', StateSnapshot)).tasks.find((x) => x.name === 'tick')!;
    assert.equal(before.next_run_at !== null, true);
    assert.equal(Date.parse(before.next_run_at!), due);
    assert.equal(before.last_run_at, null);
    clock.advance(due - clock.now());
    const started = await until(
      'task_run_started',
      () => sse.events.find((e) => e.event === 'task_run_started' && e.data.run.task === 'tick'),
      5000,
      20,
    );
    const runId = started.data.run.id;
    const done = await finished(runId);
    assert.equal(done.event, 'task_run_succeeded');
    const events = runEvents(runId);
    assert.deepEqual(
      events.map((e) => e.event),
      ['task_run_started', 'task_run_succeeded'],
    );
    assert.equal(started.data.run.status, 'running');
    assert.equal(started.data.run.ended_at, null);
    assert.deepEqual(Object.keys(done.data.run).sort(), RUN_FIELDS);
    for (const k of ['id', 'task', 'started_at', 'workspace', 'model', 'harness'])
      assert.equal(done.data.run[k], started.data.run[k], k);
    assert.deepEqual([done.data.run.status, done.data.run.error, done.data.run.harness], ['succeeded', null, 'shell']);
    assert.equal(done.data.run.workspace, workspace);

    const state = (await op('GET', '/api/v1/state')).json.data;
    assert.deepEqual(state.recent_runs[0], done.data.run);
    assert.equal(
      Date.parse(state.tasks.find((x: any) => x.name === 'tick').last_run_at),
      Date.parse(started.data.run.started_at),
    );
    const log = fs.readFileSync(path.join(t.home, 'state', 'tasks', 'tick', 'runs', `${runId}.log`), 'utf8');
    assert.match(log, new RegExp(`hello tick ${runId}`));
    assert.match(log, /prompt: say hello/);
    assert.ok(log.includes(fs.realpathSync(workspace)));
  });

  it('a failing task with notify_on_fail posts exactly one card to its owner; without it, none', async () => {
    const r = await op('POST', '/api/v1/tasks/boom/run');
    assert.equal(r.status, 202, r.text);
    const done = await finished(r.json.data.run_id);
    assert.equal(done.event, 'task_run_failed');
    assert.match(done.data.run.error, /exit 3/);
    const cards = (await thread('den')).filter((m: any) => m.kind === 'task' && m.task === 'boom');
    assert.equal(cards.length, 1);
    const logPath = path.join(t.home, 'state', 'tasks', 'boom', 'runs', `${r.json.data.run_id}.log`);
    assert.equal(cards[0].run_id, r.json.data.run_id);
    assert.match(
      cards[0].text,
      new RegExp(`^\\*\\*Task failed: boom\\*\\*\\nRun \`${r.json.data.run_id}\` · 2 attempt\\(s\\)\\n\`\`\`\\n`),
    );
    assert.ok(cards[0].text.endsWith(`\nLog: \`${logPath}\``), cards[0].text);
    assert.match(cards[0].text, /it broke/);

    const quiet = await op('POST', '/api/v1/tasks/quiet-boom/run');
    assert.equal((await finished(quiet.json.data.run_id)).event, 'task_run_failed');
    const all = [...(await thread('den')), ...(await thread('assistant'))];
    assert.equal(all.filter((m: any) => m.task === 'quiet-boom').length, 0);
  });

  it('an owner that names no agent posts to assistant with a system note naming it', async () => {
    const r = await op('POST', '/api/v1/tasks/orphan/run');
    await finished(r.json.data.run_id);
    const assistant = await thread('assistant');
    const card = assistant.find((m: any) => m.task === 'orphan');
    assert.ok(card, JSON.stringify(assistant));
    const note = assistant.find((m: any) => m.kind === 'system' && /ghost/.test(m.text));
    assert.ok(note);
    assert.equal((await op('POST', '/api/v1/tasks/orphan/run')).status, 202);
    assert.equal((await op('POST', '/api/v1/tasks/nope/run')).status, 404);
  });

  it('task-run ingress on the socket: 400 on empty id/task, 413 oversized, fields cut, status derived; 404 on TCP', async () => {
    const sock: Target = { socketPath: daemon.paths.socketFile };
    const run = { id: 'ext-1', task: 'external', started_at: new Date(clock.now()).toISOString(), status: 'failed' };
    const bad = await request(sock, 'POST', '/observe/task-run', {
      body: { type: 'task_run_started', run: { ...run, id: ' ' } },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /id/);
    assert.equal(
      (
        await request(sock, 'POST', '/observe/task-run', {
          body: { type: 'task_run_started', run: { ...run, task: '' } },
        })
      ).status,
      400,
    );
    const huge = await request(sock, 'POST', '/observe/task-run', {
      body: { type: 'task_run_failed', run: { ...run, error: 'x'.repeat(70 * 1024) } },
    });
    assert.equal(huge.status, 413);
    const mark = sse.events.length;
    const okRes = await request(sock, 'POST', '/observe/task-run', {
      body: { type: 'task_run_started', run: { ...run, model: 'm'.repeat(300), workspace: 'w'.repeat(2000) } },
    });
    assert.equal(okRes.status, 200, okRes.text);
    await sse.waitUntil(() => sse.events.slice(mark).some((e) => e.event === 'task_run_started'));
    const seen = sse.events.slice(mark).find((e) => e.event === 'task_run_started')!.data.run;
    assert.deepEqual([seen.status, seen.model.length, seen.workspace.length], ['running', 200, 1024]);
    // A run announced without started_at is stamped with the time the daemon received it, not refused.
    const unstamped = await request(sock, 'POST', '/observe/task-run', {
      body: { type: 'task_run_started', run: { id: 'ext-2', task: 'external' } },
    });
    assert.equal(unstamped.status, 200, unstamped.text);
    const isExt2 = (e: SseMessage) => e.event === 'task_run_started' && e.data.run.id === 'ext-2';
    await sse.waitUntil(() => sse.events.some(isExt2));
    assert.equal(sse.events.find(isExt2)!.data.run.started_at, rfc3339(clock.now()));
    const overTcp = await request(tcp, 'POST', '/observe/task-run', {
      token: daemon.operatorToken,
      body: { type: 'task_run_started', run },
    });
    assert.equal(overTcp.status, 404);
    assert.equal(
      (await request(tcp, 'POST', '/chat/task-failure', { token: daemon.operatorToken, body: {} })).status,
      404,
    );
  });

  it('a oneshot task without a workspace runs in <workspace_root>/<task>, made on its first run; /state shows it', async () => {
    const own = path.join(t.home, 'agents', 'homeless');
    assert.equal(fs.existsSync(own), false);
    const view = (await get('/api/v1/state', StateSnapshot)).tasks.find((x) => x.name === 'homeless')!;
    assert.equal(view.workspace, own);
    const r = await op('POST', '/api/v1/tasks/homeless/run');
    assert.equal(r.status, 202, r.text);
    const done = await finished(r.json.data.run_id);
    assert.equal(done.event, 'task_run_succeeded', JSON.stringify(done.data.run));
    assert.equal(done.data.run.workspace, own);
    const log = fs.readFileSync(
      path.join(t.home, 'state', 'tasks', 'homeless', 'runs', `${r.json.data.run_id}.log`),
      'utf8',
    );
    assert.ok(log.includes(`${fs.realpathSync(own)}\n`), log);
    const again = await runLeoAsync(['run', 'homeless'], t.env);
    assert.equal(again.status, 0, again.stdout + again.stderr);
    assert.match(again.stdout, /homeless: run \S+ succeeded/);
  });

  it('a task naming an undefined environment fails cleanly: a failed run, a card whose log exists, one line', async () => {
    const cardOf = async (runId: string) =>
      until('the card', async () => (await thread('den')).find((m: any) => m.run_id === runId), 5000);
    const logOf = (text: string) => /\nLog: `([^`]+)`$/.exec(text)![1]!;

    // In the daemon.
    const r = await op('POST', '/api/v1/tasks/unenv/run');
    assert.equal(r.status, 202, r.text);
    const done = await finished(r.json.data.run_id);
    assert.equal(done.event, 'task_run_failed');
    assert.match(done.data.run.error, /environment "nope" not defined/);
    const card = await cardOf(r.json.data.run_id);
    assert.match(fs.readFileSync(logOf(card.text), 'utf8'), /not started .*environment "nope" not defined/);

    // With `leo run`: recorded and carded the same way, and said in one line without a stack trace.
    const mark = sse.events.length;
    const run = await runLeoAsync(['run', 'unenv'], t.env);
    assert.equal(run.status, 1, run.stdout + run.stderr);
    assert.equal(run.stderr, '');
    assert.doesNotMatch(run.stdout, /\n\s+at /);
    assert.equal(run.stdout.trim().split('\n').length, 1, run.stdout);
    const runId = /^unenv: run (\S+) failed: environment "nope" not defined in leo\.yaml/.exec(run.stdout)?.[1];
    assert.ok(runId, run.stdout);
    await sse.waitUntil(() =>
      sse.events.slice(mark).some((e) => e.event === 'task_run_failed' && e.data.run.id === runId),
    );
    assert.deepEqual(
      runEvents(runId).map((e) => e.event),
      ['task_run_started', 'task_run_failed'],
    );
    const leoCard = await cardOf(runId);
    assert.match(leoCard.text, /environment "nope" not defined/);
    assert.ok(fs.existsSync(logOf(leoCard.text)), leoCard.text);
  });

  it('leo run runs a task in its own process and announces it; with the daemon down it warns and keeps its exit code', async () => {
    const mark = sse.events.length;
    const ok = await runLeoAsync(['run', 'tick'], t.env);
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal(ok.stderr, '');
    await sse.waitUntil(() => sse.events.slice(mark).some((e) => e.event === 'task_run_succeeded'), 5000);
    const failed = await runLeoAsync(['run', 'boom'], t.env);
    assert.equal(failed.status, 1);
    const runId = /run (\S+) failed/.exec(failed.stdout)![1]!;
    await until('the card from leo run', async () => (await thread('den')).find((m: any) => m.run_id === runId), 5000);
    const unknown = await runLeoAsync(['run', 'nope'], t.env);
    assert.equal(unknown.status, 2);

    // The interrupted run: a daemon shutdown stops a running task, announces it failed, and posts no card.
    const slow = await op('POST', '/api/v1/tasks/slow/run');
    await until('the slow run to start', () => runEvents(slow.json.data.run_id).length > 0, 5000, 20);
    sse.close();
    await daemon.close();
    const down = await runLeoAsync(['run', 'boom'], t.env);
    assert.equal(down.status, 1, 'the run result is unchanged');
    assert.match(down.stderr, /warning: .*daemon/);
    const downOk = await runLeoAsync(['run', 'tick'], t.env);
    assert.equal(downOk.status, 0);
    // A persistent task runs only in the daemon: without one, a one-line refusal, no stack trace.
    const noDaemon = await runLeoAsync(['run', 'keeper'], t.env);
    assert.equal(noDaemon.status, 1);
    assert.match(noDaemon.stderr, /^leo run: keeper not started: the daemon is not running/);
    assert.equal(noDaemon.stderr.trim().split('\n').length, 1, noDaemon.stderr);

    // After a restart recent_runs comes from the durable history; an old entry without timing is not fabricated.
    const db = (await import('../../src/store/database.js')).openDatabase(path.join(t.home, 'state', 'chat.db'));
    db.prepare(
      `INSERT INTO task_runs (id, task, status, completed_at, error, workspace, model, harness)
       VALUES ('old-1', 'tick', 'succeeded', '2020-01-01T00:00:00.000Z', NULL, '', '', 'shell')`,
    ).run();
    db.close();
    await start();
    const runs = (await op('GET', '/api/v1/state')).json.data.recent_runs;
    const slowRun = runs.find((r: any) => r.id === slow.json.data.run_id);
    assert.equal(slowRun.status, 'failed');
    const old = runs.find((r: any) => r.id === 'old-1');
    assert.equal(Date.parse(old.started_at), Date.parse('2020-01-01T00:00:00Z'));
    assert.equal('ended_at' in old, false);
    assert.equal('duration_ms' in old, false);
    assert.ok(runs.length >= 6);
    const slowCards = (await thread('den')).filter((m: any) => m.task === 'slow');
    assert.equal(slowCards.length, 0, 'an interrupted run posts no card');
  });
});
