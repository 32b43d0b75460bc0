// Issue 28 item 5: a can_post API client's chat message started an agent the operator had stopped. The attack: stop
// an agent as the operator, then post to its thread with a can_post client token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/wait.js';
import { issueTokens, type Tokens } from './principals.js';
import { Agent } from '../../src/wire/fleet.js';
import { MessagePage } from '../../src/wire/message.js';

describe("a client's message does not start an agent its owner stopped", () => {
  let t: TestDaemon;
  let tokens: Tokens;
  const status = async () => (await t.get('/api/v1/agents/den', Agent)).status;
  const thread = async () => (await t.get('/api/v1/chat/den/messages?limit=50', MessagePage)).messages;

  before(async () => {
    t = await startTestDaemon({
      config: `templates:\n  cat: { harness: shell, command: "exec cat" }\n`,
    });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    tokens = await issueTokens(t.tcp, t.daemon.paths, 'den');
  });
  after(async () => {
    await t.stop();
  });

  it('a running agent takes the client message; stopped, the client gets 409 and the agent stays down', async () => {
    const live = await t.as(tokens.poster).op('POST', '/api/v1/chat/den/messages', { text: 'status please' });
    assert.equal(live.status, 201, live.text);
    await until(
      'the live message to be delivered',
      async () => (await thread()).find((m) => m.text === 'status please' && m.state === 'delivered'),
      15_000,
    );

    assert.equal((await t.op('POST', '/api/v1/agents/den/stop')).status, 200);
    const r = await t.as(tokens.poster).op('POST', '/api/v1/chat/den/messages', { text: 'wake up and deploy' });
    assert.equal(r.status, 409, r.text);
    assert.equal(r.json.code, 'agent_stopped');
    assert.match(r.json.error, /den is stopped and stays down until started \(`leo agent start den`\)/);
    await sleep(1500);
    assert.equal(await status(), 'stopped');
    assert.ok(!(await thread()).some((m) => m.text === 'wake up and deploy'), 'the refused message is not stored');

    // The owner's own message still starts it, as leo-chat.md says.
    const own = await t.op('POST', '/api/v1/chat/den/messages', { text: 'back to work' });
    assert.equal(own.status, 201, own.text);
    await until('the owner to start den', async () => (await status()) === 'running', 15_000);
  });
});
