// The hub's runner of a move or copy (issue 32) over faked sides and a manual clock: the steps in order with their
// progress, a fault at every call of every step leaving exactly one agent running once its undo is done (retried with
// backoff until it goes through), a retry by id finishing the move, a restarted hub resuming one, refusals changing
// nothing.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ManualClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/logger.js';
import type { HostClient } from '../../../src/hosts/host-client.js';
import { MoveFacts, type MoveFactsDeps } from '../../../src/hosts/move/operation/move-facts.js';
import { MoveRunner } from '../../../src/hosts/move/operation/move-runner.js';
import { SHIPPED_EVERY_MS } from '../../../src/hosts/move/operation/move-shipment.js';
import { MoveStore } from '../../../src/hosts/move/operation/move-store.js';
import { openDatabase, type Database } from '../../../src/store/database.js';
import type { Agent } from '../../../src/wire/fleet.js';
import type { MoveOperation } from '../../../src/wire/move.js';
import { tempDir } from '../../helpers/temp-home.js';
import { agentFixture } from '../../wire/event-fixtures.js';
import { FakeMachines, PARTS, type FaultKind, type SideCall } from './fake-sides.js';

const TOTAL = PARTS.reduce((s, p) => s + p.bytes, 0);

interface Bench {
  runner: MoveRunner;
  machines: FakeMachines;
  clock: ManualClock;
  published: MoveOperation[];
  db: Database;
  /** Lets the runner work until it has nothing left to drive, moving the clock past each backoff. */
  settle(): Promise<void>;
  /** Another runner (a restarted hub) over the same table and machines. */
  restart(): Bench;
}

/** `den@box` on a followed host; the target `cloud`, asked through a fake HostClient. */
function bench(
  o: { kind?: 'move' | 'copy'; den?: Partial<Agent>; cloudAgents?: string[]; cloudDown?: boolean } = {},
  shared?: { machines: FakeMachines; clock: ManualClock; db: Database },
): Bench {
  const machines = shared?.machines ?? new FakeMachines(o.kind);
  const clock = shared?.clock ?? new ManualClock(Date.UTC(2026, 11, 5, 12));
  const db = shared?.db ?? openDatabase(path.join(tempDir('leo-move-runner-'), 'chat.db'));
  const store = new MoveStore(db);
  const published: MoveOperation[] = [];
  const read = async (_token: string, p: string): Promise<unknown> => {
    if (o.cloudDown) throw new Error('connect ETIMEDOUT');
    if (p === '/api/v1/agents') return (o.cloudAgents ?? ['owl']).map((name) => agentFixture({ name }));
    return [{ name: 'coder' }, { name: 'work' }];
  };
  const cloud = { read } as unknown as HostClient;

  const deps: MoveFactsDeps = {
    own: { record: () => null, busy: () => false, agents: () => [], templates: () => [], environments: () => [] },
    hosts: () => ({ box: { url: 'http://10.0.0.2:8370' }, cloud: { url: 'http://10.0.0.3:8370' } }),
    token: () => 'leo_peer_x',
    connect: () => cloud,
    followedAgent: (a) =>
      a === 'den@box' ? agentFixture({ name: 'den@box', host: 'box', template: 'coder', ...o.den }) : null,
    status: () => 'online',
    selfName: () => 'hub',
  };
  const runner = new MoveRunner({
    store,
    facts: new MoveFacts(deps),
    sides: (machine) => machines.side(machine === 'box' ? 'source' : 'target'),
    publish: (op) => published.push(op),
    clock,
    logger: createLogger('silent'),
  });
  const b: Bench = {
    runner,
    machines,
    clock,
    published,
    db,
    async settle() {
      for (let round = 0; round < 60; round++) {
        let idle = false;
        void runner.idle().then(() => (idle = true));
        for (let i = 0; i < 200 && !idle; i++) await new Promise((r) => setImmediate(r));
        if (idle) return;
        clock.advance(30_000);
      }
      throw new Error('the runner never settled');
    },
    restart: () => bench(o, { machines, clock, db }),
  };
  return b;
}

const steps = (published: MoveOperation[]) =>
  published.map((op) => op.step).filter((s, i, all) => i === 0 || all[i - 1] !== s);

describe('the move runner', () => {
  it('moves: park → ship → spawn → mark → done, with shipped progress at most ~4 a second', async () => {
    const b = bench();
    b.machines.onChunk = () => b.clock.advance(100);
    const op = await b.runner.start('move', 'den@box', { to: 'cloud' });
    assert.deepEqual([op.step, op.agent, op.to, op.as, op.attempt], ['park', 'den@box', 'cloud', 'den', 1]);
    await b.settle();
    assert.deepEqual(steps(b.published), ['park', 'ship', 'spawn', 'mark', 'done']);
    assert.deepEqual(b.machines.calls, [
      'source.park',
      'source.pack',
      'target.held',
      'source.part',
      'target.receive',
      'source.part',
      'target.receive',
      'target.spawn',
      'source.mark',
      'target.settle',
    ]);
    const shipped = b.published.filter((p) => p.step === 'ship').map((p) => p.progress);
    assert.deepEqual(shipped.at(-1), { bytes_done: TOTAL, bytes_total: TOTAL });
    for (let i = 1; i < shipped.length; i++) assert.ok(shipped[i]!.bytes_done >= shipped[i - 1]!.bytes_done);
    // 8 chunks of 100 ms: one report at the start, one per 250 ms, one at the end.
    const reports = shipped.filter((p) => p.bytes_total !== null).length;
    assert.ok(reports >= 3 && reports <= 2 + Math.ceil(800 / SHIPPED_EVERY_MS), `${reports} reports`);
    const done = b.runner.get(op.id);
    assert.equal(done.step, 'done');
    assert.equal(done.runs, 'target');
    assert.deepEqual(b.runner.of('den@box'), [done]);
    assert.deepEqual([b.machines.source, b.machines.target.running], [{ running: false, marked: true }, true]);
    assert.equal(b.machines.target.settled, true, 'what the move carried is typed on the target once marked');
  });

  it('copies: ship → spawn → done, the source left running', async () => {
    const b = bench({ kind: 'copy' });
    const op = await b.runner.start('copy', 'den@box', { to: 'cloud', as: 'den2' });
    assert.deepEqual([op.step, op.as], ['ship', 'den2']);
    await b.settle();
    assert.deepEqual(steps(b.published), ['ship', 'spawn', 'done']);
    for (const call of ['source.park', 'source.mark', 'target.settle'])
      assert.ok(!b.machines.calls.includes(call), `a copy makes no ${call}`);
    assert.deepEqual([b.machines.source.running, b.machines.target.running], [true, true]);
  });

  const CALLS: Record<'move' | 'copy', SideCall[]> = {
    move: ['park', 'pack', 'held', 'part', 'receive', 'spawn', 'mark', 'settle'],
    copy: ['pack', 'held', 'part', 'receive', 'spawn'],
  };
  for (const kind of ['move', 'copy'] as const)
    it(`a ${kind} faulted at every call leaves one agent running, then a retry by id finishes it`, async () => {
      let cases = 0;
      for (const call of CALLS[kind])
        for (const fault of ['unreachable', 'killed', 'refused'] as FaultKind[])
          for (const when of ['before', 'after'] as const) {
            const what = `${kind}: ${call} ${fault} ${when}`;
            const b = bench({ kind });
            // The step's call fails twice; the first undo of each kind fails too, and is done again after a backoff.
            b.machines.inject(
              { call, kind: fault, when, times: 2 },
              { call: 'resume', kind: 'unreachable', when: 'before', times: 1 },
              { call: 'discard', kind: 'unreachable', when: 'before', times: 1 },
            );
            const op = await b.runner.start(kind, 'den@box', { to: 'cloud' });
            await b.settle();
            let now = b.runner.get(op.id);
            assert.deepEqual(b.machines.violations, [], what);
            assert.deepEqual(now.undo, [], `${what}: the undo is done`);
            if (kind === 'move') assert.equal(b.machines.running(), 1, `${what}: one agent runs`);
            else assert.equal(b.machines.source.running, true, what);
            if (now.step === 'failed') {
              const failure = now.failure!;
              const expected = fault === 'refused' ? 'refused' : fault === 'killed' ? '_killed' : 'link_cut_';
              assert.ok(failure.fault.includes(expected), `${what}: ${failure.fault}`);
              assert.equal(kind === 'move' ? b.machines.source.running : true, true, `${what}: the source again`);
              assert.equal(b.machines.target.running, false, `${what}: nothing left on the target`);
              b.machines.inject();
              b.runner.retry(op.id);
              await b.settle();
              now = b.runner.get(op.id);
              assert.equal(now.attempt, 2, what);
            } else assert.ok(['mark', 'settle'].includes(call) || when === 'after', `${what}: went on (${now.step})`);
            assert.equal(now.step, 'done', what);
            assert.equal(b.machines.target.running, true, what);
            assert.equal(b.machines.source.running, kind === 'copy', what);
            assert.equal(b.machines.target.settled, kind === 'move', `${what}: settled once marked`);
            assert.deepEqual(b.machines.violations, [], what);
            cases++;
          }
      assert.equal(cases, CALLS[kind].length * 6);
    });

  it('keeps marking the source with a capped backoff once the target runs', async () => {
    const b = bench();
    b.machines.inject({ call: 'mark', kind: 'unreachable', when: 'before', times: 8 });
    const op = await b.runner.start('move', 'den@box', { to: 'cloud' });
    await b.settle();
    const marks = b.machines.calls.filter((c) => c === 'source.mark').length;
    assert.equal(marks, 9);
    const done = b.runner.get(op.id);
    assert.equal(done.step, 'done');
    assert.equal(done.failure, null);
    // 1 + 2 + 4 + 8 + 16 + 30 + 30 + 30 seconds of backoff, moved 30 s at a time.
    assert.ok(b.clock.now() - Date.UTC(2026, 11, 5, 12) >= 121_000);
  });

  it('a restarted hub resumes an unsettled move where its row stopped', async () => {
    const first = bench();
    first.machines.hang = 'spawn';
    const op = await first.runner.start('move', 'den@box', { to: 'cloud' });
    for (let i = 0; i < 200; i++) await new Promise((r) => setImmediate(r));
    assert.equal(first.runner.get(op.id).step, 'spawn');
    first.runner.stop();
    first.machines.hang = null;
    const second = first.restart();
    second.runner.resume();
    await second.settle();
    const done = second.runner.get(op.id);
    assert.equal(done.step, 'done');
    assert.ok(
      second.machines.calls.slice(-4).join() === 'source.pack,target.spawn,source.mark,target.settle',
      'the pack asked again',
    );
    assert.equal(second.machines.running(), 1);
    assert.equal(second.machines.target.running, true);
  });

  it('refuses with nothing changed: busy, name taken, missing template, unreachable or unknown target, no agent', async () => {
    const refusals: [Parameters<typeof bench>[0], string, unknown][] = [
      [{ den: { activity: 'working' } }, 'cloud', 'agent_busy'],
      [{ cloudAgents: ['den'] }, 'cloud', 'name_taken'],
      [{ den: { template: 'painter' } }, 'cloud', 'template_missing'],
      [{ cloudDown: true }, 'cloud', 'host_unreachable'],
      [{}, 'mars', 404],
      [{}, 'box', 'same_host'],
    ];
    for (const [o, to, expected] of refusals) {
      const b = bench(o);
      const err = await b.runner.start('move', 'den@box', { to }).then(
        () => null,
        (e: { code?: string; statusCode: number }) => e,
      );
      assert.ok(err, `${expected}: refused`);
      assert.equal(typeof expected === 'number' ? err.statusCode : err.code, expected);
      assert.deepEqual([b.runner.of('den@box'), b.published, b.machines.calls], [[], [], []], String(expected));
    }
    const b = bench();
    await assert.rejects(b.runner.start('move', 'fox@box', { to: 'cloud' }), { statusCode: 404 });
    const first = await b.runner.start('move', 'den@box', { to: 'cloud' });
    await assert.rejects(b.runner.start('copy', 'den@box', { to: 'cloud', as: 'den3' }), { code: 'move_in_progress' });
    await b.settle();
    assert.throws(() => b.runner.retry(first.id), { code: 'move_state' });
    assert.throws(() => b.runner.get('nope'), { statusCode: 404 });
  });
});
