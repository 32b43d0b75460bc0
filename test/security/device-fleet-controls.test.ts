// A paired device (Leo Web on the owner's phone) runs the fleet (issue 17): spawn from a configured template, stop,
// start, restart, rename, remove — but never sets `env`, which could change what a template's program runs.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { issueTokens, type Tokens } from './principals.js';

describe('fleet controls from a paired device', () => {
  let t: TestDaemon;
  let tokens: Tokens;
  const as = (token: string, method: string, path: string, body?: unknown) =>
    request(t.tcp, method, path, { token, ...(body === undefined ? {} : { body }) });

  before(async () => {
    t = await startTestDaemon({ config: 'templates:\n  cat: { harness: shell, command: "exec cat" }\n' });
    assert.equal(
      (await as(t.daemon.operatorToken, 'POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status,
      201,
    );
    tokens = await issueTokens(t.tcp, t.daemon.paths, 'den');
  });
  after(async () => t?.stop());

  it('spawns, stops, starts, restarts, renames and removes an agent', async () => {
    const d = tokens.device;
    assert.equal((await as(d, 'POST', '/api/v1/agents/spawn', { template: 'cat', name: 'ivy' })).status, 201);
    assert.equal((await as(d, 'POST', '/api/v1/agents/ivy/stop')).json.data.status, 'stopped');
    assert.equal((await as(d, 'POST', '/api/v1/agents/ivy/start')).json.data.status, 'running');
    assert.equal((await as(d, 'POST', '/api/v1/agents/ivy/restart')).status, 200);
    assert.equal((await as(d, 'POST', '/api/v1/agents/ivy/rename', { name: 'oak' })).json.data.name, 'oak');
    assert.deepEqual((await as(d, 'DELETE', '/api/v1/agents/oak')).json.data, { name: 'oak', removed: true });
    assert.equal((await as(d, 'GET', '/api/v1/agents/oak')).status, 404);
  });

  it("a device's spawn with env is refused and creates nothing; the operator's is taken", async () => {
    const r = await as(tokens.device, 'POST', '/api/v1/agents/spawn', {
      template: 'cat',
      name: 'sly',
      env: { BASH_ENV: '/tmp/evil' },
    });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.code, 'env_operator_only');
    assert.equal((await as(tokens.device, 'GET', '/api/v1/agents/sly')).status, 404);
    const op = await as(t.daemon.operatorToken, 'POST', '/api/v1/agents/spawn', {
      template: 'cat',
      name: 'sly',
      env: { GREETING: 'hi' },
    });
    assert.equal(op.status, 201, op.text);
  });

  it('API clients, even with can_post, control nothing', async () => {
    for (const token of [tokens.client, tokens.poster, tokens.agent]) {
      assert.equal((await as(token, 'POST', '/api/v1/agents/den/stop')).status, 403);
      assert.equal((await as(token, 'POST', '/api/v1/agents/spawn', { template: 'cat', name: 'x' })).status, 403);
    }
  });
});
