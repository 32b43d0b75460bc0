// A paired device runs the fleet (issue 17) only when granted the fleet scope (issue 29): the spec reserves spawn,
// set-environment and the other agent writes for the operator token. The owner's phone, paired with the scope, spawns,
// stops, starts, restarts, renames and removes — but never sets `env`, which could change what a template's program
// runs. A device without the scope reads and chats; the scope is granted or taken back at once, by the operator or
// from the owner's phone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import type { Response } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { issueTokens, type Tokens } from './principals.js';
import { Agent } from '../../src/wire/fleet.js';
import { IssuedToken, TokenRecord } from '../../src/wire/tokens.js';

const CONFIG = `templates:
  cat: { harness: shell, command: "exec cat" }
environments:
  staging: {}
`;

describe('fleet controls from a paired device', () => {
  let t: TestDaemon;
  let tokens: Tokens;
  /** The refusal a device without the scope meets: the error envelope, naming the scope and how to grant it. */
  const assertNoFleet = (r: Response) => {
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.code, 'forbidden');
    assert.deepEqual(r.json.details, { scope: 'fleet' });
    assert.match(r.json.error, /lacks the fleet scope/);
    assert.match(r.json.error, /leo device fleet <name> on/);
  };

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    tokens = await issueTokens(t.tcp, t.daemon.paths, 'den');
  });
  after(async () => t?.stop());

  it('with the fleet scope: spawns, sets environments, stops, starts, restarts, renames and removes', async () => {
    const d = tokens.fleet;
    assert.equal((await t.as(d).op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'ivy' })).status, 201);
    const envs = await t.as(d).op('POST', '/api/v1/agents/ivy/environments', { environments: ['staging'] });
    assert.equal(envs.status, 200, envs.text);
    assert.deepEqual(envs.json.data.environments, ['staging']);
    assert.equal((await t.as(d).op('POST', '/api/v1/agents/ivy/stop')).json.data.status, 'stopped');
    assert.equal((await t.as(d).op('POST', '/api/v1/agents/ivy/start')).json.data.status, 'running');
    assert.equal((await t.as(d).op('POST', '/api/v1/agents/ivy/restart')).status, 200);
    assert.equal((await t.as(d).op('POST', '/api/v1/agents/ivy/rename', { name: 'oak' })).json.data.name, 'oak');
    assert.deepEqual((await t.as(d).op('DELETE', '/api/v1/agents/oak')).json.data, { name: 'oak', removed: true });
    assert.equal((await t.as(d).op('GET', '/api/v1/agents/oak')).status, 404);
  });

  it('without it: spawn, set-environment and the other agent writes are 403 and change nothing', async () => {
    const d = tokens.device;
    assertNoFleet(await t.as(d).op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'elm' }));
    assert.equal((await t.as(d).op('GET', '/api/v1/agents/elm')).status, 404, 'nothing was spawned');
    assertNoFleet(await t.as(d).op('POST', '/api/v1/agents/den/environments', { environments: ['staging'] }));
    for (const action of ['stop', 'start', 'restart', 'reset']) {
      const r = await t.as(d).op('POST', `/api/v1/agents/den/${action}`);
      assert.equal(r.status, 403, `${action}: ${r.text}`);
    }
    assertNoFleet(await t.as(d).op('POST', '/api/v1/agents/den/rename', { name: 'fir' }));
    assertNoFleet(await t.as(d).op('POST', '/api/v1/agents/den/template', { template: 'cat' }));
    assertNoFleet(await t.as(d).op('DELETE', '/api/v1/agents/den'));
    const den = await t.as(d).get('/api/v1/agents/den', Agent);
    assert.equal(den.status, 'running');
    assert.deepEqual(den.environments, []);
    // It still reads, chats and dresses an agent up: those are every device's.
    assert.equal((await t.as(d).op('GET', '/api/v1/state')).status, 200);
    assert.equal((await t.as(d).op('POST', '/api/v1/chat/den/messages', { text: 'hi' })).status, 201);
    assert.equal((await t.as(d).op('PUT', '/api/v1/agents/den/appearance', { emoji: '🦊' })).status, 200);
  });

  it('/api/v1/me tells each token what it may do', async () => {
    const me = async (token: string) => (await t.as(token).op('GET', '/api/v1/me')).json.data;
    const devices = await t.get('/api/v1/devices', z.array(TokenRecord));
    const phone = devices.find((d) => d.name === 'phone')!;
    assert.deepEqual(await me(tokens.device), {
      kind: 'device',
      id: phone.id,
      name: 'phone',
      fleet: false,
      can_post: true,
    });
    assert.equal((await me(tokens.fleet)).fleet, true);
    assert.deepEqual(await me(tokens.operator), { kind: 'operator', fleet: true, can_post: true });
    assert.equal((await me(tokens.client)).fleet, false);
    assert.equal((await me(tokens.poster)).can_post, true);
  });

  it('granting and taking back the scope apply to the very next request, and end the device’s streams', async () => {
    const issued = await t.op('POST', '/api/v1/devices', { name: 'tablet' });
    assert.equal(issued.status, 201, issued.text);
    assert.equal(issued.json.data.fleet, false, 'no scope unless asked for');
    const { id, token } = IssuedToken.parse(issued.json.data);
    assertNoFleet(await t.as(token).op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'ash' }));

    let stream = await SseClient.open(t.tcp, '/api/v1/events', token);
    await stream.waitFor(1);
    const granted = await t.op('PATCH', `/api/v1/devices/${id}`, { fleet: true });
    assert.equal(granted.status, 200, granted.text);
    assert.equal(granted.json.data.fleet, true);
    await stream.waitUntil(() => stream.ended, 2000);
    assert.equal((await t.as(token).op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'ash' })).status, 201);

    stream = await SseClient.open(t.tcp, '/api/v1/events', token);
    await stream.waitFor(1);
    // Taken back by name, from the owner's phone (a device holding the scope may grant and take it back).
    const taken = await t.as(tokens.fleet).op('PATCH', '/api/v1/devices/tablet', { fleet: false });
    assert.equal(taken.status, 200, taken.text);
    await stream.waitUntil(() => stream.ended, 2000);
    assertNoFleet(await t.as(token).op('POST', '/api/v1/agents/ash/stop'));
    assertNoFleet(await t.as(token).op('POST', '/api/v1/agents/ash/environments', { environments: [] }));
    assert.equal((await t.as(token).get('/api/v1/agents/ash', Agent)).status, 'running');

    // A device without the scope cannot grant it, to itself or another; nor may it list the devices.
    assertNoFleet(await t.as(token).op('PATCH', `/api/v1/devices/${id}`, { fleet: true }));
    assertNoFleet(await t.as(token).op('GET', '/api/v1/devices'));
    assert.equal((await t.op('PATCH', '/api/v1/devices/nobody', { fleet: true })).status, 404);
    const listed = await t.as(tokens.fleet).get('/api/v1/devices', z.array(TokenRecord));
    assert.deepEqual(
      listed.filter((d) => ['phone', 'own phone', 'tablet'].includes(d.name)).map((d) => [d.name, d.fleet]),
      [
        ['phone', false],
        ['own phone', true],
        ['tablet', false],
      ],
    );
  });

  it('a pairing code carries the scope it was issued with to the device it pairs', async () => {
    const pairAs = async (name: string, fleet?: boolean) => {
      const code = await t.op('POST', '/api/v1/devices/pairing-codes', {
        name,
        ...(fleet === undefined ? {} : { fleet }),
      });
      assert.equal(code.status, 201, code.text);
      assert.equal(code.json.data.fleet, fleet === true);
      const paired = await t.as(undefined).op('POST', '/api/v1/pair', { code: code.json.data.code });
      assert.equal(paired.status, 201, paired.text);
      return paired.json.data as { device: { fleet: boolean }; token: string };
    };
    const owner = await pairAs('owner phone', true);
    assert.equal(owner.device.fleet, true);
    assert.equal(
      (await t.as(owner.token).op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'yew' })).status,
      201,
    );
    const guest = await pairAs('guest tablet');
    assert.equal(guest.device.fleet, false);
    assertNoFleet(await t.as(guest.token).op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'box' }));
  });

  it("a device's spawn with env is refused even with the scope, and creates nothing; the operator's is taken", async () => {
    const r = await t.as(tokens.fleet).op('POST', '/api/v1/agents/spawn', {
      template: 'cat',
      name: 'sly',
      env: { BASH_ENV: '/tmp/evil' },
    });
    assert.equal(r.status, 403, r.text);
    assert.equal(r.json.code, 'env_operator_only');
    assert.equal((await t.as(tokens.fleet).op('GET', '/api/v1/agents/sly')).status, 404);
    const op = await t.op('POST', '/api/v1/agents/spawn', {
      template: 'cat',
      name: 'sly',
      env: { GREETING: 'hi' },
    });
    assert.equal(op.status, 201, op.text);
  });

  it('API clients, even with can_post, control nothing', async () => {
    for (const token of [tokens.client, tokens.poster, tokens.agent]) {
      assert.equal((await t.as(token).op('POST', '/api/v1/agents/den/stop')).status, 403);
      assert.equal((await t.as(token).op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'x' })).status, 403);
    }
  });
});
