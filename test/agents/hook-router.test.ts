import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HookRouter } from '../../src/agents/hook-router.js';

const body = { agent: 'a', payload: {} };
const live = () => new AbortController().signal;
/** No agent renamed: every hook is the agent it names. */
const asNamed = { currentName: (a: string) => a };

describe('HookRouter', () => {
  it('runs every subscriber of an event in subscription order, and none of another event', async () => {
    const router = new HookRouter(asNamed);
    const calls: string[] = [];
    router.on('stop', () => (calls.push('chat'), {}));
    router.on('stop', async () => (calls.push('tasks'), {}));
    router.on('session-start', () => (calls.push('agents'), {}));
    assert.deepEqual(await router.dispatch('stop', body, live()), {});
    assert.deepEqual(calls, ['chat', 'tasks']);
  });

  it('runs a subscriber that asked to be first ahead of those already there (the reply before the bookkeeping)', async () => {
    const router = new HookRouter(asNamed);
    const calls: string[] = [];
    router.on('stop', () => (calls.push('usage'), {}));
    router.on('stop', () => (calls.push('summaries'), {}));
    router.on('stop', () => (calls.push('reply'), {}), { first: true });
    await router.dispatch('stop', body, live());
    assert.deepEqual(calls, ['reply', 'usage', 'summaries']);
  });

  it("answers with the first subscriber's output and still runs the rest", async () => {
    const router = new HookRouter(asNamed);
    const calls: string[] = [];
    router.on('permission-request', () => (calls.push('quiet'), {}));
    router.on('permission-request', async () => (calls.push('decides'), { output: 'allow' }));
    router.on('permission-request', () => (calls.push('late'), { output: 'deny' }));
    assert.deepEqual(await router.dispatch('permission-request', body, live()), { output: 'allow' });
    assert.deepEqual(calls, ['quiet', 'decides', 'late']);
  });

  it('acknowledges an event nobody follows with no output', async () => {
    assert.deepEqual(await new HookRouter(asNamed).dispatch('user-prompt-submit', body, live()), {});
  });

  it('hands each subscriber the hook body and the signal that aborts when the hook hangs up', async () => {
    const router = new HookRouter(asNamed);
    const gone = new AbortController();
    let seen: [string, boolean] | undefined;
    router.on('stop', (b, signal) => {
      seen = [b.agent, signal.aborted];
      return {};
    });
    gone.abort();
    await router.dispatch('stop', body, gone.signal);
    assert.deepEqual(seen, ['a', true]);
  });

  it('hands subscribers the agent a hook comes from now (a live rename leaves the harness its old name)', async () => {
    const router = new HookRouter({ currentName: (a) => (a === 'old' ? 'new' : a) });
    const seen: string[] = [];
    router.on('stop', (b) => (seen.push(b.agent), {}));
    await router.dispatch('stop', { agent: 'old', payload: {} }, live());
    await router.dispatch('stop', { agent: 'other', payload: {} }, live());
    assert.deepEqual(seen, ['new', 'other']);
  });
});
