// A move's steps as a pure state machine (issue 32): every step meets every fault, with the fault landing before or
// after the step's work took effect, and the machine's own actions are then played on a model of the two hosts until
// it settles. Never two agents running on the way; exactly one at the end: the source before the target's spawn
// answered, the target after.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  actionOf,
  MoveStateError,
  nextMove,
  startMove,
  type MoveAction,
} from '../../../src/hosts/move/operation/move-machine.js';
import { MoveFault, MoveProgressEvent, type MoveOperation, type MoveStep } from '../../../src/wire/move.js';

const NOW = '2026-12-05T11:00:00Z';
const start = (kind: MoveOperation['kind']) =>
  startMove({ id: '01MOVE', kind, agent: 'den@box', to: 'cloud', as: 'den', force: false, now: NOW });

/** The two hosts as far as the rule cares: is the source's agent running, and what the move left on the target. */
interface World {
  source: 'running' | 'parked' | 'marked';
  target: 'nothing' | 'files' | 'running';
}

const EFFECT: Record<MoveAction, (w: World) => World> = {
  park_source: (w) => ({ ...w, source: 'parked' }),
  ship: (w) => ({ ...w, target: 'files' }),
  spawn_target: (w) => ({ ...w, target: 'running' }),
  mark_source: (w) => ({ ...w, source: 'marked' }),
  resume_source: (w) => ({ ...w, source: 'running' }),
  discard_target: (w) => ({ ...w, target: 'nothing' }),
};

const running = (w: World) => Number(w.source === 'running') + Number(w.target === 'running');

/**
 * Plays the machine's actions until it settles; `until` stops at the first moment actionOf names that step's work.
 * Each world it passes through is checked with `check`.
 */
function play(op: MoveOperation, world: World, check: (w: World) => void, until?: MoveAction) {
  for (let guard = 0; guard < 20; guard++) {
    const action = actionOf(op);
    if (action === null || action === until) return { op, world };
    world = EFFECT[action](world);
    check(world);
    op =
      action === 'resume_source' || action === 'discard_target'
        ? nextMove(op, { type: 'undone', undo: action }, NOW)
        : nextMove(op, { type: 'step_done' }, NOW);
  }
  throw new Error('the machine did not settle');
}

const STEP_WORK: Partial<Record<MoveStep, MoveAction>> = {
  park: 'park_source',
  ship: 'ship',
  spawn: 'spawn_target',
  mark: 'mark_source',
};

describe('a move’s state machine', () => {
  it('goes park → ship → spawn → mark → done, carrying the shipped bytes, and parses as its wire shape', () => {
    let op = start('move');
    const seen: (string | null)[] = [];
    for (;;) {
      seen.push(actionOf(op));
      if (op.step === 'done') break;
      if (op.step === 'ship') op = nextMove(op, { type: 'shipped', bytes_done: 40, bytes_total: 100 }, NOW);
      op = nextMove(op, { type: 'step_done' }, NOW);
      MoveProgressEvent.parse({ move: op });
    }
    assert.deepEqual(seen, ['park_source', 'ship', 'spawn_target', 'mark_source', null]);
    assert.deepEqual(op.progress, { bytes_done: 40, bytes_total: 100 });
    assert.equal(op.runs, 'target');
  });

  it('a copy only ships and spawns, and its source always runs', () => {
    let op = start('copy');
    assert.equal(actionOf(op), 'ship');
    op = nextMove(nextMove(op, { type: 'step_done' }, NOW), { type: 'step_done' }, NOW);
    assert.equal(op.step, 'done');
    assert.equal(op.runs, 'source');
  });

  for (const step of ['park', 'ship', 'spawn', 'mark'] as const)
    for (const fault of MoveFault.options)
      for (const tookEffect of [false, true])
        it(`move: ${fault} at ${step}, ${tookEffect ? 'after' : 'before'} its work took effect`, () => {
          const never2 = (w: World) => assert.ok(running(w) <= 1, `two agents run: ${JSON.stringify(w)}`);
          const reached = play(start('move'), { source: 'running', target: 'nothing' }, never2, STEP_WORK[step]);
          let { op, world } = reached;
          assert.equal(op.step, step);
          if (tookEffect) world = EFFECT[STEP_WORK[step]!](world);
          op = nextMove(op, { type: 'fault', fault, message: 'boom' }, NOW);
          const settled = play(op, world, never2);
          assert.equal(running(settled.world), 1, `exactly one runs: ${JSON.stringify(settled.world)}`);
          const spawned = step === 'mark';
          const concerned = fault !== 'hub_killed' && isConcerned(step, fault);
          if (spawned || !concerned) {
            // Past the spawn, or a fault the step does not talk to (or the hub's own restart): the move goes on.
            assert.equal(settled.op.step, 'done');
            assert.deepEqual(settled.world, { source: 'marked', target: 'running' });
          } else {
            assert.equal(settled.op.step, 'failed');
            assert.deepEqual(settled.op.failure, { step, fault, message: 'boom' });
            assert.deepEqual(settled.world, { source: 'running', target: 'nothing' }, 'the source again, nothing left');
            // Settled: retried by its id, from the start.
            const again = nextMove(settled.op, { type: 'retry' }, NOW);
            assert.deepEqual([again.step, again.attempt, again.failure], ['park', 2, null]);
          }
        });

  for (const step of ['ship', 'spawn'] as const)
    for (const fault of MoveFault.options)
      it(`copy: ${fault} at ${step}: the source runs throughout, the target is left with nothing`, () => {
        const source = (w: World) => assert.equal(w.source, 'running');
        let { op, world } = play(start('copy'), { source: 'running', target: 'nothing' }, source, STEP_WORK[step]);
        world = EFFECT[STEP_WORK[step]!](world);
        op = nextMove(op, { type: 'fault', fault, message: 'boom' }, NOW);
        const settled = play(op, world, source);
        const concerned = fault !== 'hub_killed' && isConcerned(step, fault);
        assert.deepEqual(settled.world.target, concerned ? 'nothing' : 'running');
        assert.equal(settled.op.step, concerned ? 'failed' : 'done');
      });

  it('a spawn that failed clears the target before the source starts again', () => {
    let op = play(start('move'), { source: 'running', target: 'nothing' }, () => {}, 'spawn_target').op;
    op = nextMove(op, { type: 'fault', fault: 'link_cut_target', message: 'cut' }, NOW);
    assert.deepEqual(op.undo, ['discard_target', 'resume_source']);
    assert.throws(() => nextMove(op, { type: 'undone', undo: 'resume_source' }, NOW), MoveStateError);
    assert.throws(() => nextMove(op, { type: 'retry' }, NOW), /still being undone/);
    // A fault while undoing changes nothing: the undo is done again, the first failure stays the reason.
    assert.equal(nextMove(op, { type: 'fault', fault: 'target_killed', message: 'again' }, NOW), op);
  });

  it('a fault at mark keeps the move going, its reason kept, marking again', () => {
    let op = play(start('move'), { source: 'running', target: 'nothing' }, () => {}, 'mark_source').op;
    op = nextMove(op, { type: 'fault', fault: 'source_killed', message: 'gone' }, NOW);
    assert.deepEqual(
      [op.step, op.runs, actionOf(op), op.failure?.fault],
      ['mark', 'target', 'mark_source', 'source_killed'],
    );
    assert.equal(nextMove(op, { type: 'step_done' }, NOW).failure, null);
  });

  it('refuses what cannot happen where the operation is', () => {
    const op = start('move');
    assert.throws(() => nextMove(op, { type: 'shipped', bytes_done: 1, bytes_total: 2 }, NOW), /outside the ship/);
    assert.throws(() => nextMove(op, { type: 'retry' }, NOW), /only a failed move/);
    const shipping = nextMove(op, { type: 'step_done' }, NOW);
    assert.throws(() => nextMove(shipping, { type: 'shipped', bytes_done: 3, bytes_total: 2 }, NOW), /no progress/);
    const done = play(op, { source: 'running', target: 'nothing' }, () => {}).op;
    assert.throws(
      () => nextMove(done, { type: 'step_done' }, NOW),
      (e: MoveStateError) => e.statusCode === 409,
    );
  });
});

/** Which faults a step talks to: the side (or sides) its work is done on, or its own refusal. */
function isConcerned(step: 'park' | 'ship' | 'spawn' | 'mark', fault: MoveFault): boolean {
  if (fault === 'refused') return true;
  const side = fault === 'link_cut_source' || fault === 'source_killed' ? 'source' : 'target';
  return step === 'ship' || (side === 'source') === (step === 'park' || step === 'mark');
}
