import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import type { Config } from '../../src/config/schema.js';
import { ConfigWatcher, type ConfigLogger } from '../../src/config/watch.js';
import { chatEngineFor } from '../../src/harnesses/index.js';

const HOME = '/home/tester';
const WAIT_MS = 5000;
// leo.yaml is rewritten in place with writeFileSync: its truncation and its write follow each other at once, where
// fs.promises.writeFile lets the event loop turn between them and a loaded machine can stretch that past the
// watcher's 20 ms debounce, so it reads the empty file (all defaults, a valid change) instead of the edit.

/**
 * Waits for `event`. The watcher itself never keeps the process alive (unref'd fs.watch and
 * timers), so this holds a ref'd timer that doubles as the failure timeout.
 */
async function waitFor<T extends unknown[]>(w: ConfigWatcher, event: 'change' | 'reload_failed'): Promise<T> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error(`timed out waiting for ${event}`)), WAIT_MS);
  try {
    return (await once(w, event, { signal: ac.signal })) as T;
  } finally {
    clearTimeout(timer);
  }
}

interface LogLine {
  level: 'info' | 'warn' | 'error';
  obj: unknown;
  msg: string | undefined;
}

function memoryLogger(): ConfigLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = (level: LogLine['level']) => (obj: unknown, msg?: string) => {
    lines.push({ level, obj, msg });
  };
  return { lines, info: log('info'), warn: log('warn'), error: log('error') };
}

describe('ConfigWatcher', () => {
  let dir = '';
  let file = '';
  let watcher: ConfigWatcher | undefined;

  beforeEach(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'leo-config-watch-'));
    file = path.join(dir, 'leo.yaml');
  });
  afterEach(async () => {
    watcher?.stop();
    watcher = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  function make(logger = memoryLogger()) {
    watcher = new ConfigWatcher({ path: file, home: HOME, chatEngineFor, logger, debounceMs: 20 });
    return { w: watcher, logger };
  }

  function nextChange(w: ConfigWatcher): Promise<[Config, Config]> {
    return waitFor<[Config, Config]>(w, 'change');
  }

  it('start() loads the file; current is the config', async () => {
    writeFileSync(file, 'web:\n  listen: 127.0.0.1:9001\n');
    const { w } = make();
    assert.throws(() => w.current, /before start/);
    const c = await w.start();
    assert.equal(c.web.listen, '127.0.0.1:9001');
    assert.equal(w.current, c);
  });

  it('start() with an invalid config throws listing every error', async () => {
    writeFileSync(file, 'web:\n  listen: abc\ntemplates:\n  sh:\n    harness: shell\n');
    const { w } = make();
    await assert.rejects(w.start(), (err: Error) => {
      assert.match(err.message, /leo\.yaml:2: web\.listen: expected host:port, got "abc"/);
      assert.match(err.message, /leo\.yaml:4: templates\.sh\.command: required when harness is shell/);
      return true;
    });
  });

  it('start() logs unknown-key warnings', async () => {
    // Private, as leo.yaml should be: a readable one would add its own warning.
    writeFileSync(file, 'web:\n  colour: red\n', { mode: 0o600 });
    const { w, logger } = make();
    await w.start();
    const warns = logger.lines.filter((l) => l.level === 'warn').map((l) => l.msg);
    assert.deepEqual(warns, [`${file}:2: unknown key web.colour (ignored)`]);
  });

  it('a valid edit emits change(new, old)', async () => {
    writeFileSync(file, 'log:\n  level: info\n');
    const { w } = make();
    const first = await w.start();
    const changed = nextChange(w);
    writeFileSync(file, 'log:\n  level: debug\n');
    const [next, prev] = await changed;
    assert.equal(next.log.level, 'debug');
    assert.equal(prev, first);
    assert.equal(w.current, next);
  });

  it('a bad edit keeps the old config, logs the error and emits reload_failed', async () => {
    writeFileSync(file, 'web:\n  listen: 127.0.0.1:9002\n');
    const { w, logger } = make();
    const first = await w.start();
    let changes = 0;
    w.on('change', () => changes++);
    const failed = waitFor<[string[], string]>(w, 'reload_failed');
    writeFileSync(file, 'web:\n  listen: nope\n');
    const [errors] = await failed;
    assert.deepEqual(errors, [`${file}:2: web.listen: expected host:port, got "nope"`]);
    assert.equal(w.current, first);
    assert.equal(changes, 0);
    const logged = logger.lines.filter((l) => l.level === 'error').map((l) => l.msg);
    assert.ok(logged.includes(errors[0]), `error not logged: ${JSON.stringify(logged)}`);

    // A later fix is picked up again.
    const changed = nextChange(w);
    writeFileSync(file, 'web:\n  listen: 127.0.0.1:9003\n');
    const [next] = await changed;
    assert.equal(next.web.listen, '127.0.0.1:9003');
  });

  it('a file replaced by rename (editor save) is detected', async () => {
    writeFileSync(file, 'pool:\n  max_queue: 1\n');
    const { w } = make();
    await w.start();
    const changed = nextChange(w);
    const tmp = path.join(dir, '.leo.yaml.swp');
    await writeFile(tmp, 'pool:\n  max_queue: 2\n');
    await rename(tmp, file);
    const [next] = await changed;
    assert.equal(next.pool.max_queue, 2);

    // The watch survives the replacement: a second replace is seen too.
    const changed2 = nextChange(w);
    await writeFile(tmp, 'pool:\n  max_queue: 3\n');
    await rename(tmp, file);
    const [next2] = await changed2;
    assert.equal(next2.pool.max_queue, 3);
  });

  it('a file created after start is detected', async () => {
    const { w } = make();
    const first = await w.start();
    assert.equal(first.web.listen, '127.0.0.1:8370');
    const changed = nextChange(w);
    writeFileSync(file, 'web:\n  listen: 127.0.0.1:9004\n');
    const [next] = await changed;
    assert.equal(next.web.listen, '127.0.0.1:9004');
  });

  it('other files in the directory are ignored', async () => {
    writeFileSync(file, '');
    const { w } = make();
    await w.start();
    let reloads = 0;
    w.on('change', () => reloads++);
    w.on('reload_failed', () => reloads++);
    await writeFile(path.join(dir, 'other.yaml'), '- not: config\n');
    await sleep(150);
    assert.equal(reloads, 0);
  });

  it('bursts of writes are debounced into one reload', async () => {
    writeFileSync(file, '');
    const logger = memoryLogger();
    watcher = new ConfigWatcher({ path: file, home: HOME, chatEngineFor, logger, debounceMs: 200 });
    const w = watcher;
    await w.start();
    const seen: number[] = [];
    w.on('change', (c) => seen.push(c.pool.max_queue));
    for (let i = 1; i <= 5; i++) {
      writeFileSync(file, `pool:\n  max_queue: ${i}\n`);
      await sleep(5);
    }
    await sleep(800);
    assert.deepEqual(seen, [5]);
  });

  it('reload(reason) re-reads on demand and reports the result', async () => {
    writeFileSync(file, '');
    const { w } = make();
    await w.start();
    w.stop(); // no file events: only the explicit reload
    writeFileSync(file, 'log:\n  level: warn\n');
    const changed = nextChange(w);
    const ok = await w.reload('SIGHUP');
    assert.ok(ok.ok);
    assert.equal((await changed)[0].log.level, 'warn');

    writeFileSync(file, 'log: [\n');
    const bad = await w.reload('SIGHUP');
    assert.equal(bad.ok, false);
    assert.equal(w.current.log.level, 'warn');
  });

  it('stop() prevents further reloads', async () => {
    writeFileSync(file, '');
    const { w } = make();
    await w.start();
    w.stop();
    let reloads = 0;
    w.on('change', () => reloads++);
    writeFileSync(file, 'log:\n  level: debug\n');
    await sleep(150);
    assert.equal(reloads, 0);
    assert.equal(w.current.log.level, 'info');
  });

  it('accepts a pino logger', async () => {
    writeFileSync(file, '');
    const logger = pino({ level: 'silent' });
    watcher = new ConfigWatcher({ path: file, home: HOME, chatEngineFor, logger });
    assert.equal((await watcher.start()).log.level, 'info');
  });
});
