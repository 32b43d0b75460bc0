import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import { spawnDaemon, waitForExit } from '../helpers/cli.js';
import { killTmuxServer, startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';

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
      const r = await t.daemon.pool.run('ping', { at: 7 });
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

  it('a save of leo.yaml reloads it once, logged once; a reload warns of an environment nobody defined', async () => {
    const yaml = (extra: string) => `web:\n  listen: 127.0.0.1:0\nlog:\n  level: info\npool:\n  threads: 1\n${extra}`;
    const t = makeTempHome(yaml(''));
    const d = await spawnDaemon(t.env);
    try {
      const file = `${t.home}/leo.yaml`;
      const lines = () =>
        d
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as { msg: string; level: number });
      const reloads = () => lines().filter((l) => l.msg === 'config reloaded').length;
      const settled = async (n: number) => {
        await until(`reload ${n}`, () => reloads() >= n, 10_000);
        // Past the watcher's debounce: a second event from the same save would have reloaded by now.
        await sleep(600);
        return reloads();
      };
      // An editor's save: the new text in a temp file renamed over the old one.
      fs.writeFileSync(`${file}.tmp`, yaml('# saved once\n'));
      fs.renameSync(`${file}.tmp`, file);
      assert.equal(await settled(1), 1, d.output());
      // A save in place.
      fs.writeFileSync(file, yaml(`templates:\n  bot: { harness: shell, command: "sleep 1", environments: [nope] }\n`));
      assert.equal(await settled(2), 2, d.output());
      const warned = lines().filter((l) => l.level === 40 && /environment "nope" is not defined/.test(l.msg));
      assert.equal(warned.length, 1, d.output());
      assert.match(warned[0]!.msg, /leo\.yaml:8: templates\.bot\.environments: environment "nope"/);
    } finally {
      d.child.kill('SIGTERM');
      await waitForExit(d.child);
      killTmuxServer(t.home);
      t.cleanup();
    }
  });
});
