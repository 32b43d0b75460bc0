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
