import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { runLeo, runLeoAsync } from '../helpers/cli.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';

describe('leo token / device / client beside a running daemon', () => {
  let t: TestDaemon;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    t = await startTestDaemon();
    env = { ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home };
  });
  after(() => t.stop());

  it('leo token prints the operator token the daemon checks', () => {
    const r = runLeo(['token'], env);
    assert.equal(r.status, 0);
    assert.equal(r.stdout.trim(), t.daemon.operatorToken);
    assert.equal(fs.readFileSync(t.daemon.paths.operatorTokenFile, 'utf8').trim(), t.daemon.operatorToken);
  });

  it('a device paired by the CLI is accepted at once, listed, and refused after revoke, which ends its stream', async () => {
    const paired = runLeo(['device', 'pair', 'my phone', '--token'], env);
    assert.equal(paired.status, 0, paired.stderr);
    const token = /token: (\S+)/.exec(paired.stdout)![1]!;
    assert.equal((await request(t.tcp, 'GET', '/api/v1/version', { token })).status, 200);
    // Opened before the synchronous CLI runs below, which stall this process (the daemon's too): a kept-alive socket
    // reused after such a stall can meet the server's keep-alive timeout closing it.
    const stream = await SseClient.open(t.tcp, '/api/v1/events', token);
    await stream.waitFor(1);

    const again = runLeo(['device', 'pair', 'my phone', '--token'], env);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /already exists/);

    const list = runLeo(['device', 'list', '--json'], env);
    assert.deepEqual(
      JSON.parse(list.stdout).map((d: { name: string }) => d.name),
      ['my phone'],
    );
    assert.equal(list.stdout.includes(token), false, 'listing never shows the token');

    // Revoking goes through the running daemon (asynchronously here: it runs in this process).
    const revoked = await runLeoAsync(['device', 'revoke', 'my phone'], env);
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.match(revoked.stdout, /revoked device "my phone"/);
    await stream.waitUntil(() => stream.ended, 1000);
    assert.equal((await request(t.tcp, 'GET', '/api/v1/version', { token })).status, 401);
    const twice = await runLeoAsync(['device', 'revoke', 'my phone'], env);
    assert.equal(twice.status, 1);
    assert.match(twice.stderr, /no device with id or name "my phone"/);
  });

  it('leo device pair --fleet grants the fleet scope; list shows it; leo device fleet grants and takes it back', async () => {
    // GET /api/v1/devices is open to the devices that may run the fleet only: a cheap probe of the scope.
    const mayRunFleet = async (token: string) =>
      (await request(t.tcp, 'GET', '/api/v1/devices', { token })).status === 200;
    const owner = runLeo(['device', 'pair', 'owner phone', '--fleet', '--token'], env);
    assert.equal(owner.status, 0, owner.stderr);
    assert.match(owner.stdout, /device "owner phone" created \(id \S+, fleet\)/);
    const ownerToken = /token: (\S+)/.exec(owner.stdout)![1]!;
    const guest = runLeo(['device', 'pair', 'guest', '--token'], env);
    assert.equal(guest.status, 0, guest.stderr);
    const guestToken = /token: (\S+)/.exec(guest.stdout)![1]!;
    assert.equal(await mayRunFleet(ownerToken), true);
    assert.equal(await mayRunFleet(guestToken), false);

    const text = runLeo(['device', 'list'], env).stdout;
    assert.match(text, /owner phone {2}fleet {2}created/);
    assert.match(text, /guest {2}no fleet {2}created/);
    const listed = JSON.parse(runLeo(['device', 'list', '--json'], env).stdout) as { name: string; fleet: boolean }[];
    assert.deepEqual(
      listed.map((d) => [d.name, d.fleet]),
      [
        ['owner phone', true],
        ['guest', false],
      ],
    );

    // Through the running daemon: the next request is decided by the new scope.
    const on = await runLeoAsync(['device', 'fleet', 'guest', 'on'], env);
    assert.equal(on.status, 0, on.stderr);
    assert.match(on.stdout, /device "guest" may now run the fleet/);
    assert.equal(await mayRunFleet(guestToken), true);
    const off = await runLeoAsync(['device', 'fleet', 'owner phone', 'off'], env);
    assert.equal(off.status, 0, off.stderr);
    assert.match(off.stdout, /device "owner phone" may no longer run the fleet/);
    assert.equal(await mayRunFleet(ownerToken), false);

    const unknown = await runLeoAsync(['device', 'fleet', 'nobody', 'on'], env);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /no device with id or name "nobody"/);
    const unclear = await runLeoAsync(['device', 'fleet', 'guest', 'maybe'], env);
    assert.equal(unclear.status, 1);
    assert.match(unclear.stderr, /say "on" or "off"/);

    // A link carries the scope to the browser that opens it.
    const link = await runLeoAsync(['device', 'pair', 'tablet', '--fleet'], env);
    assert.equal(link.status, 0, link.stderr);
    assert.match(link.stdout, /it may run the fleet/);
    const code = /#pair=([\w-]+)/.exec(link.stdout)![1]!;
    const paired = await request(t.tcp, 'POST', '/api/v1/pair', { body: { code } });
    assert.equal(paired.json.data.device.fleet, true, paired.text);
    const plain = await runLeoAsync(['device', 'pair', 'kiosk'], env);
    assert.match(plain.stdout, /it may read and chat, not spawn or stop agents/);
  });

  it('API clients get can_post only when asked, and bad names are refused', () => {
    assert.equal(runLeo(['client', 'add', 'den'], env).status, 0);
    assert.equal(runLeo(['client', 'add', 'poster', '--can-post'], env).status, 0);
    const list = JSON.parse(runLeo(['client', 'list', '--json'], env).stdout) as { name: string; can_post: boolean }[];
    assert.deepEqual(
      list.map((c) => [c.name, c.can_post]),
      [
        ['den', false],
        ['poster', true],
      ],
    );
    const bad = runLeo(['client', 'add', '../etc'], env);
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /name:/);
  });
});
