import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigSchema } from '../../src/config/schema.js';
import { ManualClock } from '../../src/core/clock.js';
import { PersistentRuns } from '../../src/tasks/persistent-runs.js';

const config = ConfigSchema.parse({
  templates: { helper: { harness: 'claude' } },
  tasks: {
    digest: {
      schedule: '0 6 * * *',
      runtime: 'persistent',
      template: 'helper',
      prompt: 'Write the digest',
      timeout: '60s',
    },
  },
});

function harness(over: Partial<ConstructorParameters<typeof PersistentRuns>[0]> = {}) {
  const clock = new ManualClock();
  const calls: string[] = [];
  const runs = new PersistentRuns({
    config: () => config,
    clock,
    agentExists: () => false,
    spawn: async (req) => calls.push(`spawn ${req.template} ${req.name}`),
    start: async (name) => calls.push(`start ${name}`),
    isRunning: () => true,
    deliver: async (agent, text) => calls.push(`deliver ${agent} ${text}`),
    reportsTurnEnd: () => true,
    ownerOf: (task) => task,
    ...over,
  });
  return { clock, calls, runs };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('persistent task runs', () => {
  it('spawns the task agent from its template, delivers the prompt, files posts under the run until the turn ends', async () => {
    const { calls, runs } = harness();
    const done = runs.run('digest', 'run-1', new AbortController().signal);
    await tick();
    assert.deepEqual(calls, ['spawn helper digest', 'deliver digest [Leo Task digest run run-1] Write the digest']);
    assert.deepEqual(runs.inFlight('digest'), { task: 'digest', runId: 'run-1', ownerIsAsker: true });
    runs.turnEnded('digest');
    assert.deepEqual(await done, { ok: true });
    assert.equal(runs.inFlight('digest'), undefined);
  });

  it("says whether the task's owner is the agent asking, so its asks keep no unattended deadline", async () => {
    const { runs } = harness({ ownerOf: () => 'den' });
    const done = runs.run('digest', 'run-9', new AbortController().signal);
    await tick();
    assert.deepEqual(runs.inFlight('digest'), { task: 'digest', runId: 'run-9', ownerIsAsker: false });
    runs.turnEnded('digest');
    await done;
  });

  it('starts a stopped agent; a harness without turn ends finishes at delivery', async () => {
    const { calls, runs } = harness({ agentExists: () => true, isRunning: () => false, reportsTurnEnd: () => false });
    assert.deepEqual(await runs.run('digest', 'run-2', new AbortController().signal), { ok: true });
    assert.equal(calls[0], 'start digest');
  });

  it('names the stage that failed: enqueue, rejected, await (timeout and interruption)', async () => {
    const spawnFails = harness({ spawn: async () => Promise.reject(new Error('template gone')) });
    assert.deepEqual(await spawnFails.runs.run('digest', 'r', new AbortController().signal), {
      ok: false,
      error: 'enqueue: template gone',
    });
    const refused = harness({ deliver: async () => Promise.reject(new Error('tmux paste: pane is dead')) });
    assert.deepEqual(await refused.runs.run('digest', 'r', new AbortController().signal), {
      ok: false,
      error: 'rejected: tmux paste: pane is dead',
    });
    const slow = harness();
    const waiting = slow.runs.run('digest', 'r', new AbortController().signal);
    await tick();
    slow.clock.advance(60_000);
    assert.deepEqual(await waiting, { ok: false, error: 'await: the turn did not end within 60 s' });
    const abort = new AbortController();
    const stopped = harness();
    const interrupted = stopped.runs.run('digest', 'r', abort.signal);
    await tick();
    abort.abort();
    assert.deepEqual(await interrupted, { ok: false, error: 'await: interrupted' });
    assert.equal(stopped.runs.inFlight('digest'), undefined);
  });
});
