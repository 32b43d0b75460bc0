// The meter over a real chat.db: a turn is stored and counted once whatever replays its Stop, the sums survive a
// restart, and the per-day route's days are UTC days with zeros for quiet ones.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { EventBus } from '../../src/events/bus.js';
import { openDatabase } from '../../src/store/database.js';
import { moveAgentRows } from '../../src/store/agent-rows.js';
import type { HarnessTurn } from '../../src/wire/usage.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { UsageStore } from '../../src/usage/usage-store.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-usage-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;

const DAY = 24 * 3600 * 1000;
const T0 = Date.UTC(2026, 11, 1, 23, 30);
const usage = { input_tokens: 10, output_tokens: 4, cache_read_tokens: 100, cache_write_tokens: 1, cost_usd: 0.25 };

function setup(file = path.join(dir, `chat${++n}.db`)) {
  const db = openDatabase(file);
  const clock = new ManualClock(T0);
  const bus = new EventBus(clock);
  const events: any[] = [];
  bus.subscribe({ deliver: (e) => void events.push(e) });
  const reads: unknown[] = [];
  let next: HarnessTurn | null = null;
  const meter = new UsageMeter({
    store: new UsageStore(db),
    bus,
    clock,
    logger: createLogger('silent'),
    prices: () => ({ 'gpt-test': { input: 1, output: 2 } }),
    read: async (input) => (reads.push(input), next),
  });
  return { db, file, clock, events, reads, meter, setNext: (t: HarnessTurn | null) => (next = t) };
}

describe('usage meter', () => {
  it('stores a turn once: a replayed Stop, or the same turn after a restart, adds nothing', async () => {
    const s = setup();
    await s.meter.onStop('oc', 'opencode', { usage, turn_id: 'turn-1' });
    await s.meter.onStop('oc', 'opencode', { usage, turn_id: 'turn-1' });
    assert.equal(s.events.filter((e) => e.type === 'agent_usage').length, 1);
    const event = s.events.find((e) => e.type === 'agent_usage');
    assert.deepEqual(event.data.turn, usage);
    assert.equal(event.data.agent, 'oc');
    assert.equal(event.data.totals.turns, 1);
    assert.equal(s.meter.totals('oc').turns, 1);

    s.db.close();
    const again = setup(s.file);
    assert.deepEqual(again.meter.totals('oc'), { ...usage, turns: 1, unpriced_turns: 0 }, 'sums read back');
    await again.meter.onStop('oc', 'opencode', { usage, turn_id: 'turn-1' });
    assert.equal(again.events.length, 0);
    await again.meter.onStop('oc', 'opencode', { usage: { ...usage, cost_usd: null }, turn_id: 'turn-2' });
    assert.deepEqual(again.meter.totals('oc'), {
      turns: 2,
      unpriced_turns: 1,
      input_tokens: 20,
      output_tokens: 8,
      cache_read_tokens: 200,
      cache_write_tokens: 2,
      cost_usd: 0.25,
    });
    again.db.close();
  });

  it('reads Claude and Codex turns from the Stop transcript_path, naming the turn each harness names, and prices them', async () => {
    const s = setup();
    s.setNext({ key: 'p1', model: 'gpt-test', tokens: { ...usage, input_tokens: 1_000_000 } });
    await s.meter.onStop('cx', 'codex', { transcript_path: '/r.jsonl', turn_id: 't-9', prompt_id: 'ignored' });
    await s.meter.onStop('cl', 'claude', { transcript_path: '/t.jsonl', prompt_id: 'p-3' });
    await s.meter.onStop('cl', 'claude', { prompt_id: 'p-4' });
    await s.meter.onStop('sh', 'shell', { transcript_path: '/x' });
    await s.meter.onStop('gone', null, { transcript_path: '/x' });
    assert.deepEqual(s.reads, [
      { format: 'codex', transcript: '/r.jsonl', turn: 't-9' },
      { format: 'claude', transcript: '/t.jsonl', turn: 'p-3' },
    ]);
    assert.equal(s.meter.totals('cx').cost_usd, (1_000_000 + 4 * 2 + 100 + 1) / 1e6);
    s.db.close();
  });

  it('sums per UTC day, oldest first, with a row for every day asked for', async () => {
    const s = setup();
    await s.meter.onStop('a', 'opencode', { usage, turn_id: '1' });
    s.clock.advance(DAY);
    await s.meter.onStop('a', 'opencode', { usage, turn_id: '2' });
    await s.meter.onStop('a', 'opencode', { usage, turn_id: '3' });
    await s.meter.onStop('b', 'opencode', { usage, turn_id: '4' });
    const days = s.meter.perDay('a', 3);
    assert.deepEqual(
      days.map((d) => [d.day, d.turns, d.output_tokens, d.cost_usd]),
      [
        ['2026-11-30', 0, 0, null],
        ['2026-12-01', 1, 4, 0.25],
        ['2026-12-02', 2, 8, 0.5],
      ],
    );
    s.db.close();
  });

  it('a renamed agent keeps its usage', async () => {
    const s = setup();
    await s.meter.onStop('old', 'opencode', { usage, turn_id: '1' });
    moveAgentRows(s.db, 'old', 'new');
    s.meter.renamed('old', 'new');
    assert.equal(s.meter.totals('new').turns, 1);
    assert.equal(s.meter.totals('old').turns, 0);
    assert.equal(s.meter.perDay('new', 1)[0]?.turns, 1);
    s.db.close();
  });
});
