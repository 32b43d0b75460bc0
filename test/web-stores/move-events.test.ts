import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { parseEvent, type FleetEvent } from '../../src/web/api/events.js';
import { refusalWords } from '../../src/web/components/move/refusal-words.js';
import { humanBytes } from '../../src/web/render/bytes.js';
import { applyHosts } from '../../src/web/stores/hosts.js';
import { arrivalAddress, hostNames, machineName, movedAway, stepWords } from '../../src/web/stores/move-view.js';
import {
  applyMoveEvent,
  arrivedHere,
  dismissMove,
  moves,
  movesOffered,
  onMoveHello,
  trackMove,
  underWay,
} from '../../src/web/stores/moves.js';
import type { HostEntry } from '../../src/wire/host.js';
import type { MoveOperation } from '../../src/wire/move.js';
import { eventFixture } from '../wire/event-fixtures.js';

/** A move_progress as the app's stream reader hands it on: the fixture's operation with `over` laid on it. */
function progress(over: Partial<MoveOperation> = {}): FleetEvent {
  const base = eventFixture('move_progress').move;
  const data = eventFixture('move_progress', { move: { ...base, ...over } });
  const event = parseEvent('move_progress', JSON.parse(JSON.stringify(data)));
  assert.ok(event, 'move_progress parses');
  return event;
}
const opOf = (e: FleetEvent) => (e.type === 'move_progress' ? e.data.move : assert.fail(e.type));

const T1 = '2026-01-02T03:04:05.000Z';
const T2 = '2026-01-02T03:04:06.000Z';
const box: HostEntry = {
  name: 'box',
  url: 'http://127.0.0.1:7001',
  status: 'online',
  last_seen: T1,
  version: '0.1.0',
  host_id: '01JHOST',
  rtt_ms: 3,
};

describe("Leo Web's moves store over move_progress", () => {
  beforeEach(() => {
    moves.value = new Map();
    movesOffered.value = false;
  });

  it('an event puts its operation under the source agent; a later one of the same operation replaces it', () => {
    applyMoveEvent(progress({ step: 'park', updated_at: T1 }));
    assert.equal(moves.value.get('den@box')?.step, 'park');
    applyMoveEvent(progress({ step: 'ship', updated_at: T2, progress: { bytes_done: 10, bytes_total: 100 } }));
    assert.deepEqual(moves.value.get('den@box')?.progress, { bytes_done: 10, bytes_total: 100 });
  });

  it('an older word never overwrites a newer one: a stale catch-up, or an earlier operation of the same agent', () => {
    applyMoveEvent(progress({ step: 'spawn', updated_at: T2 }));
    applyMoveEvent(progress({ step: 'ship', updated_at: T1 }));
    assert.equal(moves.value.get('den@box')?.step, 'spawn');
    applyMoveEvent(progress({ id: '01JMOVE0000000000000000000', step: 'failed', updated_at: T2 }));
    assert.equal(moves.value.get('den@box')?.step, 'spawn', 'an earlier id is an earlier operation');
    applyMoveEvent(progress({ id: '01JMOVEZZZZZZZZZZZZZZZZZZZ', step: 'park', updated_at: T1 }));
    assert.equal(moves.value.get('den@box')?.id, '01JMOVEZZZZZZZZZZZZZZZZZZZ', 'a later id is the newer operation');
  });

  it('other events leave it alone; dismissing drops a finished one', () => {
    applyMoveEvent(parseEvent('chat.read', JSON.parse(JSON.stringify(eventFixture('chat.read'))))!);
    assert.equal(moves.value.size, 0);
    applyMoveEvent(progress({ step: 'done' }));
    dismissMove('den@box');
    assert.equal(moves.value.size, 0);
  });

  it('under way until done, or failed with its undoing finished', () => {
    const op = opOf(progress());
    assert.equal(underWay({ ...op, step: 'park' }), true);
    assert.equal(underWay({ ...op, step: 'failed', undo: ['resume_source'] }), true);
    assert.equal(underWay({ ...op, step: 'failed', undo: [] }), false);
    assert.equal(underWay({ ...op, step: 'done' }), false);
  });

  it('a hello says whether the hub moves agents and reads, once, each operation still under way', async () => {
    applyMoveEvent(progress({ agent: 'den@box', step: 'ship' }));
    applyMoveEvent(progress({ agent: 'fox', step: 'done' }));
    const asked: string[] = [];
    await onMoveHello(['agent_move'], async (agent) => {
      asked.push(agent);
      return [opOf(progress({ agent, step: 'mark', updated_at: T2 }))];
    });
    assert.equal(movesOffered.value, true);
    assert.deepEqual(asked, ['den@box'], 'a finished operation is not read again');
    assert.equal(moves.value.get('den@box')?.step, 'mark');
    await onMoveHello([], async () => []);
    assert.equal(movesOffered.value, false, 'a hub without agent_move offers no move');
  });

  it('a move started here takes the owner to its new address when done, once; a copy or a stranger’s never', () => {
    const op = opOf(progress({ id: '01JMOVEHERE000000000000000', kind: 'move' }));
    trackMove(op);
    assert.equal(arrivedHere({ ...op, step: 'spawn' }), false);
    assert.equal(arrivedHere({ ...op, step: 'done' }), true);
    assert.equal(arrivedHere({ ...op, step: 'done' }), false, 'once');
    const copy = opOf(progress({ id: '01JCOPYHERE000000000000000', kind: 'copy', step: 'done' }));
    trackMove(copy);
    assert.equal(arrivedHere(copy), false);
    assert.equal(arrivedHere(opOf(progress({ id: '01JELSEWHERE00000000000000', step: 'done' }))), false);
  });
});

describe('how the app words a move', () => {
  beforeEach(() => applyHosts([box]));

  it('an agent arrives as name@host on a followed host, and by its bare name on the hub itself', () => {
    assert.deepEqual(hostNames.value, ['box']);
    assert.equal(arrivalAddress('den', 'box', hostNames.value), 'den@box');
    assert.equal(arrivalAddress('den', 'hub', hostNames.value), 'den');
    assert.equal(machineName('box', hostNames.value), 'box');
    assert.equal(machineName('hub', hostNames.value), 'this machine');
  });

  it('a dormant record points at its new address, under the name the move gave it', () => {
    assert.deepEqual(movedAway({ name: 'den', moved_to: 'box' }, ['box']), { address: 'den@box', machine: 'box' });
    assert.deepEqual(movedAway({ name: 'den@box', moved_to: 'hub', moved_as: 'fox' }, ['box']), {
      address: 'fox',
      machine: 'this machine',
    });
    assert.equal(movedAway({ name: 'den' }, ['box']), null);
  });

  it('each step in words, the target named where it starts', () => {
    const op = opOf(progress());
    const words = (['park', 'ship', 'spawn', 'mark', 'done', 'failed'] as const).map((step) =>
      stepWords({ ...op, step }, 'box'),
    );
    assert.deepEqual(words, ['Parking', 'Shipping', 'Starting on box', 'Finishing', 'Done', 'Failed']);
  });

  it('bytes in human units', () => {
    assert.deepEqual([0, 1023, 2048, 5 * 1048576 + 104858, 3 * 1073741824].map(humanBytes), [
      '0 B',
      '1023 B',
      '2 KB',
      '5.1 MB',
      '3.00 GB',
    ]);
  });

  it("every refusal code in words naming the agent and the machine; an unknown code shows the hub's message", () => {
    const ctx = { agent: 'den', machine: 'box' };
    const codes = [
      'agent_busy',
      'name_taken',
      'template_missing',
      'environment_missing',
      'move_in_progress',
      'same_host',
      'workspace_too_large',
      'host_unreachable',
      'agent_moved',
    ];
    for (const code of codes) {
      const said = refusalWords({ code, message: `the hub says ${code}` }, ctx);
      assert.ok(!said.words.includes(code), `${code} is worded: ${said.words}`);
      assert.match(said.words, /den|box/, `${code} names what it is about`);
    }
    assert.equal(
      refusalWords({ code: 'template_missing', message: 'box has no template "x"' }, ctx).detail,
      'box has no template "x"',
    );
    assert.deepEqual(refusalWords({ code: 'disk_full', message: 'no space left' }, ctx), { words: 'no space left' });
    assert.deepEqual(refusalWords({ message: 'network error' }, ctx), { words: 'network error' });
  });
});
