// Push subscriptions belong to the device token that registered them (issue 20 item 3): the store scopes listing
// and removal by owner, the database deletes them with their token however the row goes, and the migration drops the
// rows from before owners were recorded.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { TokenStore } from '../../src/auth/token-store.js';
import { ManualClock } from '../../src/core/clock.js';
import { SubscriptionStore } from '../../src/push/subscription-store.js';
import { openDatabase } from '../../src/store/database.js';
import { migrations } from '../../src/store/migrations.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-sub-owners-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
const hook = (n: number) => ({
  provider: 'webhook' as const,
  url: `https://relay.example/${n}`,
  secret: 'x'.repeat(16),
});

describe('push subscription owners', () => {
  it('the migration drops the subscriptions that have no owner, and keeps the rest of chat.db', () => {
    const file = path.join(dir, 'old.db');
    const step = migrations.findIndex((m) => m.name === 'push subscription owners');
    const old = openDatabase(file, migrations.slice(0, step));
    // A device as that schema stored it (TokenStore writes today's columns).
    old
      .prepare('INSERT INTO tokens (id, kind, name, hash, created_at) VALUES (?, ?, ?, ?, ?)')
      .run('d1', 'device', 'phone', 'h1', 'x');
    old
      .prepare('INSERT INTO push_subscriptions (id, provider, body, created_at) VALUES (?, ?, ?, ?)')
      .run('s1', 'webhook', JSON.stringify({ ...hook(1), id: 's1', device: 'phone' }), 'x');
    old.close();
    const db = openDatabase(file);
    try {
      assert.equal(new SubscriptionStore(db, new ManualClock()).list().length, 0);
      assert.equal(new TokenStore(db, new ManualClock()).list('device').length, 1);
    } finally {
      db.close();
    }
  });

  it('listing and removal are scoped to the owner; the operator’s scope is all; revoking deletes the device’s', () => {
    const db = openDatabase(path.join(dir, 'new.db'));
    try {
      const clock = new ManualClock();
      const tokens = new TokenStore(db, clock);
      const subs = new SubscriptionStore(db, clock);
      const phone = tokens.issue('device', 'phone').record.id;
      const tablet = tokens.issue('device', 'tablet').record.id;
      const a = subs.add(hook(1), phone).id;
      const b = subs.add(hook(2), tablet).id;
      const c = subs.add(hook(3), null).id;
      const ids = (scope: Parameters<SubscriptionStore['summaries']>[0]) => subs.summaries(scope).map((s) => s.id);
      assert.deepEqual(ids({ tokenId: phone }), [a]);
      assert.deepEqual(ids('all').sort(), [a, b, c].sort());
      assert.equal(subs.remove(b, { tokenId: phone }), false, 'not the phone’s to remove');
      assert.ok(subs.has(b));
      assert.ok(tokens.revoke('device', 'phone'));
      assert.deepEqual(
        subs
          .list()
          .map((s) => s.id)
          .sort(),
        [b, c].sort(),
        'the phone’s went with its token',
      );
      assert.equal(subs.remove(c), true);
    } finally {
      db.close();
    }
  });
});
