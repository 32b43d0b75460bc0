import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';

describe('daemon and its config', () => {
  it('refuses to start on a config error, naming the key and the line', async () => {
    const t = makeTempHome('web:\n  listen: 127.0.0.1:0\npool:\n  threads: lots\n');
    try {
      await assert.rejects(startDaemon({ env: t.env, logger: createLogger('silent') }), (err: Error) => {
        assert.match(err.message, /leo\.yaml:4: pool\.threads/);
        return true;
      });
      assert.equal(fs.existsSync(`${t.home}/state/leo.sock`), false, 'nothing was left listening');
    } finally {
      t.cleanup();
    }
  });

  it('a bad edit while running keeps the last good config; a good edit applies without a restart', async () => {
    const t = await startTestDaemon();
    try {
      const file = t.daemon.paths.configFile;
      const asHost = () => request(t.tcp, 'GET', '/health', { headers: { host: 'box.tailnet.example' } });
      assert.equal((await asHost()).status, 403);

      fs.writeFileSync(file, testConfig('', '  allowed_hosts: [box.tailnet.example]\n  sse_queue: -3\n'));
      const failed = await t.daemon.reloadConfig('test');
      assert.equal(failed.ok, false);
      assert.match(!failed.ok ? failed.errors.join('\n') : '', /web\.sse_queue/);
      assert.equal(t.daemon.config().web.sse_queue, 1024, 'the old config is still in force');
      assert.equal((await asHost()).status, 403);
      assert.equal((await request(t.tcp, 'GET', '/health')).status, 200, 'and the daemon keeps serving');

      fs.writeFileSync(file, testConfig('', '  allowed_hosts: [box.tailnet.example]\n'));
      const applied = await t.daemon.reloadConfig('test');
      assert.equal(applied.ok, true);
      assert.deepEqual(t.daemon.config().web.allowed_hosts, ['box.tailnet.example']);
      assert.equal((await asHost()).status, 200);
    } finally {
      await t.stop();
    }
  });

  it('runs pool tasks on a worker thread and reports the pool', async () => {
    const t = await startTestDaemon();
    try {
      const r = await t.daemon.pool.run<{ at: number; threadId: number }>('ping', { at: 7 });
      assert.equal(r.at, 7);
      assert.notEqual(r.threadId, 0, 'not the main thread');
      const readout = t.daemon.pool.readout();
      assert.equal(readout.maxThreads, 1);
      assert.ok(readout.completed >= 2);
      assert.equal(readout.queueSize, 0);
    } finally {
      await t.stop();
    }
  });
});
