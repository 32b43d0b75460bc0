import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { AgentRecord } from '../../src/agents/agent-record.js';
import { AgentExistsError, AgentStore } from '../../src/agents/agent-store.js';
import { RecentMessages } from '../../src/agents/agent-messages.js';
import { ManualClock } from '../../src/core/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { agentRecord } from '../helpers/agent-record.js';

const rec = (name: string): AgentRecord =>
  agentRecord({
    name,
    template: 't',
    repo: 'org/repo',
    branch: 'main',
    environments: ['a', 'b'],
    env: { SECRET: 'x' },
  });

describe('AgentStore', () => {
  it('round-trips records, refuses a taken name, renames and removes', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-agents-'));
    const db = openDatabase(path.join(dir, 'chat.db'));
    try {
      const store = new AgentStore(db);
      store.insert(rec('den'));
      assert.deepEqual(store.get('den'), rec('den'));
      assert.throws(() => store.insert(rec('den')), AgentExistsError);
      store.update('den', { environments: null, emoji: '🦊' });
      assert.equal(store.get('den')!.environments, null);
      assert.equal(store.get('den')!.emoji, '🦊');
      store.insert(rec('plex'));
      assert.throws(() => store.rename('den', 'plex'), AgentExistsError);
      store.rename('den', 'chronicle');
      assert.deepEqual(
        store.list().map((r) => r.name),
        ['chronicle', 'plex'],
      );
      store.setState('plex', 'parked');
      assert.equal(store.get('plex')!.state, 'parked');
      assert.equal(store.remove('plex'), true);
      assert.equal(store.remove('plex'), false);
    } finally {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('recent agent messages', () => {
  it('keeps 50 at most, oldest first, and drops those older than 10 minutes', () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const recent = new RecentMessages(clock);
    recent.record(undefined, 'den');
    clock.advance(6 * 60_000);
    for (let i = 0; i < 55; i++) recent.record('a', `t${i}`);
    const list = recent.list();
    assert.equal(list.length, 50);
    assert.equal(list[0]!.to, 't5');
    assert.equal('from' in recent.record(undefined, 'x'), false, 'from is omitted for non-agents');
    clock.advance(9 * 60_000);
    assert.equal(recent.list().length, 50, 'nine minutes old: still listed');
    clock.advance(2 * 60_000);
    assert.deepEqual(recent.list(), [], 'eleven minutes old: dropped');
  });
});
