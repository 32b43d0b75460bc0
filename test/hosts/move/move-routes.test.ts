// A hub's move and copy routes (issue 32) on real daemons: a hub following one host, box, with the hub's sides
// faked. The refusals answer before anything changes (the target asked through the hub's own client); a move answers
// 202 with its operation, which then runs to done, published as move_progress and read back by id and by agent.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MoveOperation } from '../../../src/wire/move.js';
import { runLeoAsync } from '../../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { pairHost } from '../../helpers/pair-host.js';
import { SseClient } from '../../helpers/sse-client.js';
import { until } from '../../helpers/wait.js';
import { FakeMachines } from './fake-sides.js';

const CAT = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('the hub’s move routes', () => {
  let hub: TestDaemon;
  let box: TestDaemon;
  const machines = new FakeMachines();
  const spawn = async (d: TestDaemon, name: string, template = 'cat') =>
    assert.equal((await d.op('POST', '/api/v1/agents/spawn', { template, name })).status, 201);

  before(async () => {
    // `gone` is followed in name only: the hub holds no token for it, so it cannot be asked anything.
    const hubConfig = `${CAT}  painter: { harness: shell, command: "exec cat" }\nclient:\n  hosts:\n    gone: { url: "http://127.0.0.1:9" }\n`;
    [hub, box] = await Promise.all([
      startTestDaemon({
        config: hubConfig,
        moveSides: (machine) => machines.side(machine === null ? 'source' : 'target'),
      }),
      startTestDaemon({ config: CAT }),
    ]);
    await Promise.all([spawn(hub, 'own'), spawn(hub, 'den'), spawn(hub, 'art', 'painter'), spawn(box, 'den')]);
    await pairHost(hub, box, 'box');
  });
  after(async () => {
    await Promise.all([hub.stop(), box.stop()]);
  });

  it('advertises agent_move', async () => {
    const r = await hub.op('GET', '/api/v1/version');
    assert.ok((r.json.data.features as string[]).includes('agent_move'), r.text);
  });

  it('refuses before anything changes, each with its status and code', async () => {
    const refusals: [string, string, unknown, number, string | undefined][] = [
      ['move', 'ghost', { to: 'box' }, 404, undefined],
      ['move', 'own', { to: 'mars' }, 404, undefined],
      ['move', 'den', { to: 'box' }, 409, 'name_taken'],
      ['copy', 'den', { to: 'box' }, 409, 'name_taken'],
      ['move', 'art', { to: 'box' }, 409, 'template_missing'],
      ['move', 'own', { to: 'gone' }, 503, 'host_unreachable'],
      ['move', 'den@box', { to: 'box' }, 409, 'same_host'],
      ['move', 'own', { to: 'box', force: 'yes' }, 400, undefined],
      ['copy', 'own', { to: 'box', force: true }, 400, undefined],
    ];
    for (const [kind, agent, body, status, code] of refusals) {
      const r = await hub.op('POST', `/api/v1/agents/${agent}/${kind}`, body);
      assert.equal(r.status, status, `${kind} ${agent} ${JSON.stringify(body)}: ${r.text}`);
      if (code) assert.equal(r.json.code, code, r.text);
    }
    assert.deepEqual(machines.calls, []);
    assert.deepEqual((await hub.op('GET', '/api/v1/moves?agent=own')).json.data, []);
    assert.equal((await hub.op('GET', '/api/v1/moves/01NOPE')).status, 404);
  });

  it('a workspace over the size limit is refused before anything changes, naming the size', async () => {
    machines.tooLarge = 'the workspace is 1.5 GiB, over the move limit of 1.0 GiB';
    try {
      for (const kind of ['move', 'copy']) {
        const r = await hub.op('POST', `/api/v1/agents/own/${kind}`, { to: 'box', as: 'own9' });
        assert.equal(r.status, 409, r.text);
        assert.equal(r.json.code, 'workspace_too_large');
        assert.match(r.json.error, /1\.5 GiB, over the move limit of 1\.0 GiB/);
      }
      assert.deepEqual(machines.calls, [], 'nothing parked, nothing shipped');
      assert.deepEqual((await hub.op('GET', '/api/v1/moves?agent=own')).json.data, []);
    } finally {
      machines.tooLarge = null;
    }
  });

  it('a move answers 202 with its operation, runs to done, and is read back by id and by agent', async () => {
    const events = await SseClient.open(hub.tcp, '/api/v1/events', hub.daemon.operatorToken);
    try {
      const r = await hub.op('POST', '/api/v1/agents/own/move', { to: 'box' });
      assert.equal(r.status, 202, r.text);
      const op = MoveOperation.parse(r.json.data);
      assert.deepEqual(
        [op.kind, op.agent, op.to, op.as, op.step, op.attempt],
        ['move', 'own', 'box', 'own', 'park', 1],
      );
      const done = await until(
        'the move done',
        async () => {
          const now = await hub.get(`/api/v1/moves/${op.id}`, MoveOperation);
          return now.step === 'done' && now;
        },
        20_000,
      );
      assert.equal(done.runs, 'target');
      assert.deepEqual(
        (await hub.op('GET', '/api/v1/moves?agent=own')).json.data.map((m: MoveOperation) => m.id),
        [op.id],
      );
      const progress = await until(
        'move_progress up to done',
        () => {
          const steps = events.events.filter((e) => e.event === 'move_progress').map((e) => e.data.move.step);
          return steps.includes('done') && steps;
        },
        20_000,
      );
      assert.deepEqual([...new Set(progress)], ['park', 'ship', 'spawn', 'mark', 'done']);
      const retried = await hub.op('POST', `/api/v1/moves/${op.id}/retry`);
      assert.equal(retried.status, 409, retried.text);
      assert.equal(retried.json.code, 'move_state');
    } finally {
      events.close();
    }
  });

  it('leo agent copy prints the progress and exits 0; a failed move exits 1 and --retry finishes it', async () => {
    const leo = (...args: string[]) => runLeoAsync(['agent', ...args], { ...process.env, LEO_HOME: hub.home });
    const copied = await leo('copy', 'own', '--to', 'box', '--as', 'own2');
    assert.equal(copied.status, 0, copied.stderr);
    assert.match(copied.stdout, /^copy own → own2@box: shipping/m);
    assert.match(copied.stdout, /^copy own → own2@box: done$/m);

    machines.inject({ call: 'spawn', kind: 'refused', when: 'before', times: 1 });
    const failed = await leo('move', 'own', '--to', 'box', '--as', 'own3');
    assert.equal(failed.status, 1, failed.stdout + failed.stderr);
    assert.match(failed.stdout, /failed at spawn \(refused\): the target refused/);
    const id = /--retry (\S+)/.exec(failed.stdout)?.[1];
    assert.ok(id, failed.stdout);
    const retried = await leo('move', '--retry', id);
    assert.equal(retried.status, 0, retried.stdout + retried.stderr);
    assert.match(retried.stdout, /move own → own3@box: done$/m);
    assert.equal((await leo('move', 'own')).status, 1, 'no --to');
  });
});
