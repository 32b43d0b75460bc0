// chat.db's WAL checkpointed from a pool thread (docs/DECISIONS.md, "Checkpoints off the main thread"): the main
// connection appends, a pool thread's own connection copies the WAL into the database once enough rows changed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { WorkerPool } from '../../src/pool/worker-pool.js';
import { openDatabase } from '../../src/store/database.js';
import { MAIN_CHECKPOINT_PAGES, WalCheckpoints, type CheckpointResult } from '../../src/store/wal-checkpoint.js';

function database(t: TestContext) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-wal-'));
  const file = path.join(dir, 'chat.db');
  const db = openDatabase(file, undefined, { checkpointPages: MAIN_CHECKPOINT_PAGES });
  db.exec('CREATE TABLE filler (id INTEGER PRIMARY KEY, text TEXT)');
  t.after(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const write = (rows: number) => {
    for (let i = 0; i < rows; i++) db.prepare('INSERT INTO filler (text) VALUES (?)').run('x'.repeat(500));
  };
  return { db, file, write };
}

describe('WAL checkpoints off the main thread', () => {
  it('the main connection checkpoints only past its bound; a pool thread copies the WAL, and the next write restarts it', async (t) => {
    const { db, file, write } = database(t);
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), MAIN_CHECKPOINT_PAGES);
    const pool = new WorkerPool({ threads: 1, maxQueue: 10 });
    t.after(() => pool.close());
    const results: CheckpointResult[] = [];
    const checkpoints = new WalCheckpoints({
      db,
      file,
      checkpoint: async (f) => {
        const r = await pool.run('checkpointWal', { file: f });
        results.push(r);
        return r;
      },
      onError: (err) => assert.fail(err as Error),
      everyRows: 100,
    });

    write(99);
    checkpoints.look();
    await checkpoints.stop();
    assert.equal(results.length, 0, 'fewer rows than the bound: nothing to copy yet');

    write(1);
    checkpoints.look();
    checkpoints.look();
    await checkpoints.stop();
    assert.equal(results.length, 1, 'one checkpoint, however often looked');
    const [first] = results;
    assert.ok(first!.log > 100, `the WAL held the rows' pages: ${JSON.stringify(first)}`);
    assert.deepEqual([first!.busy, first!.checkpointed], [0, first!.log], 'every frame copied');

    // Copied in full, the WAL starts over at the next write instead of growing.
    write(100);
    checkpoints.look();
    await checkpoints.stop();
    assert.ok(results[1]!.log < first!.log, `restarted: ${results[1]!.log} frames after ${first!.log}`);
    assert.equal(db.prepare('SELECT count(*) FROM filler').pluck().get(), 200);
  });

  it('a checkpoint that failed is asked again at the next look', async (t) => {
    const { db, file, write } = database(t);
    let calls = 0;
    const errors: string[] = [];
    const checkpoints = new WalCheckpoints({
      db,
      file,
      checkpoint: async () => {
        if (++calls === 1) throw new Error('the pool is full');
        return { busy: 0, log: 0, checkpointed: 0 };
      },
      onError: (err) => errors.push((err as Error).message),
      everyRows: 10,
    });
    write(10);
    checkpoints.look();
    await checkpoints.stop();
    checkpoints.look();
    await checkpoints.stop();
    assert.deepEqual([calls, errors], [2, ['the pool is full']]);
  });
});
