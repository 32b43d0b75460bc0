/**
 * What chat.db's checkpoints cost the main thread: the daemon's commit pattern (an insert and a state update per
 * message, one transaction each) at a steady rate, timed commit by commit, with SQLite's own checkpoint (every 1 000
 * WAL pages, by whichever commit crosses it, on the committing thread) and with the daemon's (a pool thread's own
 * connection, src/store/wal-checkpoint.ts, SQLite's own kept as a net at MAIN_CHECKPOINT_PAGES), side by side in one
 * run. Prints the commits' p50/p99/p99.9/max, the ones over 2 ms and the main-thread time they took.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/wal-checkpoint.js [--messages 15000] [--rate 1000]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { WorkerPool } from '../src/pool/worker-pool.js';
import { openDatabase } from '../src/store/database.js';
import { MAIN_CHECKPOINT_PAGES, WalCheckpoints } from '../src/store/wal-checkpoint.js';
import { int, options } from './lib/options.js';
import { fmt, machineLine, maxOf, quantile, table } from './lib/report.js';

const o = options({ messages: int(15_000), rate: int(1_000) });
const STALL_MS = 2;

async function run(offThread: boolean): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-wal-bench-'));
  const file = path.join(dir, 'chat.db');
  const db = openDatabase(file, undefined, offThread ? { checkpointPages: MAIN_CHECKPOINT_PAGES } : {});
  db.exec(
    'CREATE TABLE m (id INTEGER PRIMARY KEY, agent TEXT, text TEXT, state TEXT); CREATE INDEX mi ON m (agent, state)',
  );
  const pool = new WorkerPool({ threads: 1, maxQueue: 10 });
  let checkpoints = 0;
  const copier = new WalCheckpoints({
    db,
    file,
    checkpoint: (f) => (checkpoints++, pool.background.run('checkpointWal', { file: f })),
    onError: (err) => console.error(err),
  });
  if (offThread) copier.start();
  const insert = db.prepare("INSERT INTO m (agent, text, state) VALUES (?, ?, 'pending')");
  const deliver = db.prepare("UPDATE m SET state = 'delivered' WHERE id = ?");
  const text = 'x'.repeat(300);
  const times: number[] = [];
  const began = performance.now();
  for (let i = 0; i < o.messages; i++) {
    const at = performance.now();
    const { lastInsertRowid } = insert.run(`agent${i % 100}`, text);
    deliver.run(lastInsertRowid);
    times.push(performance.now() - at);
    // Paced to the rate, in steps of 5 messages, so the pool thread and the timer get their turns as in the daemon.
    if (i % 5 === 4) await sleep(Math.max(0, began + ((i + 1) * 1000) / o.rate - performance.now()));
  }
  await copier.stop();
  await pool.close();
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  const stalls = times.filter((t) => t > STALL_MS);
  return [
    offThread ? 'pool thread (the daemon)' : "SQLite's own, on the main thread",
    fmt(quantile(times, 0.5), 3),
    fmt(quantile(times, 0.99), 3),
    fmt(quantile(times, 0.999), 1),
    fmt(maxOf(times), 1),
    String(stalls.length),
    fmt(
      stalls.reduce((a, b) => a + b, 0),
      0,
    ),
    offThread ? String(checkpoints) : 'n/a',
  ];
}

console.log(machineLine());
console.log(`${o.messages} messages at ${o.rate}/s, two commits each; a commit over ${STALL_MS} ms counts as a stall`);
const rows = [await run(false), await run(true)];
table(['checkpoints', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'stalls', 'stalled ms', 'pool checkpoints'], rows);
