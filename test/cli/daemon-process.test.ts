import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLeo, spawnDaemon, waitForExit } from '../helpers/cli.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';

describe('leo daemon as a process', () => {
  it('serves, reloads on SIGHUP keeping the last good config, and shuts down gracefully on SIGTERM', async () => {
    const t = makeTempHome(testConfig().replace('level: warn', 'level: info'));
    const { child, port, output } = await spawnDaemon(t.env);
    try {
      const socket = { socketPath: `${t.home}/state/leo.sock` };
      const token = fs.readFileSync(`${t.home}/state/api.token`, 'utf8').trim();
      assert.equal((await request({ port }, 'GET', '/api/v1/version', { token })).status, 200);

      const second = runLeo(['daemon'], t.env);
      assert.equal(second.status, 1, 'a second daemon on the same home refuses to start');
      assert.match(second.stderr, /already listening/);

      fs.writeFileSync(
        `${t.home}/leo.yaml`,
        testConfig().replace('level: warn', 'level: info').replace('listen: 127.0.0.1:0', 'listen: nonsense'),
      );
      child.kill('SIGHUP');
      await waitFor(() => /"reason":"SIGHUP".*web\.listen: expected host:port/.test(output()));
      assert.equal((await request(socket, 'GET', '/health')).json.data.ready, true, 'still serving on the old config');

      const stream = await SseClient.open({ port }, '/api/v1/events', token);
      await stream.waitFor(1);
      child.kill('SIGTERM');
      assert.equal(await waitForExit(child), 0);
      await stream.waitUntil(() => stream.ended);
      assert.equal(fs.existsSync(socket.socketPath), false, 'the socket file is removed');
      assert.match(output(), /leo daemon stopped/);
    } finally {
      child.kill('SIGKILL');
      t.cleanup();
    }
  });
});

async function waitFor(pred: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(50);
  }
}
