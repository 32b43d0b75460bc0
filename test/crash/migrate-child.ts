// Child process of migration.test.ts: opens chat.db the daemon's way (openDatabase) with each of Leo's migration steps
// made slow by a stream of writes inside the step's own transaction, and announces each step on stdout, so the parent
// can SIGKILL it in the middle of one.
import fs from 'node:fs';
import type { Migration } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/database.js';

const [file, stepMs] = process.argv.slice(2) as [string, string];
const nap = new Int32Array(new SharedArrayBuffer(4));

const slowed: Migration[] = migrations.map((m, i) => ({
  name: m.name,
  up(db) {
    fs.writeSync(1, `step ${i}\n`);
    m.up(db);
    // More than SQLite's page cache holds, so uncommitted pages spill into the WAL before the kill lands.
    db.exec('CREATE TABLE crash_scratch (b BLOB)');
    const insert = db.prepare('INSERT INTO crash_scratch VALUES (randomblob(4096))');
    for (const end = Date.now() + Number(stepMs); Date.now() < end;) {
      for (let n = 0; n < 16; n++) insert.run();
      Atomics.wait(nap, 0, 0, 4);
    }
    db.exec('DROP TABLE crash_scratch');
  },
}));

openDatabase(file, slowed).close();
fs.writeSync(1, 'done\n');
