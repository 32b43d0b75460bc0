// A turn whose Stop found the daemon down is metered at the next start-up, from the transcript, once: a turn the
// transcript shows ended is counted (and its late Stop adds nothing), one still running is left to its own Stop.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { EventBus } from '../../src/events/bus.js';
import { openDatabase } from '../../src/store/database.js';
import { claudeLastTurnEnded } from '../../src/harnesses/claude/usage.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { UsageStore } from '../../src/usage/usage-store.js';
import { readTurnUsage } from '../../workers/turn-usage.js';
import { tempDir } from '../helpers/temp-home.js';

const FIXTURES = path.resolve(fileURLToPath(import.meta.url), '../../../../test/fixtures/transcripts');
const lines = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8').split('\n').filter(Boolean);

function meter() {
  const db = openDatabase(path.join(tempDir('leo-usage-catch-up-'), 'chat.db'));
  const clock = new ManualClock(Date.now());
  const m = new UsageMeter({
    store: new UsageStore(db),
    bus: new EventBus(clock),
    clock,
    logger: createLogger('silent'),
    prices: () => ({}),
    read: readTurnUsage,
  });
  return { m, close: () => db.close() };
}

describe('usage of a turn whose Stop the daemon missed', () => {
  it('a finished turn is counted at start-up, once, and its Stop arriving later adds nothing', async () => {
    const all = lines('bash-tool.jsonl');
    assert.equal(claudeLastTurnEnded(all), true);
    const file = path.join(tempDir('leo-usage-t-'), 't.jsonl');
    fs.writeFileSync(file, all.join('\n') + '\n');
    const { m, close } = meter();
    try {
      await m.catchUp('den', 'claude', file);
      const counted = m.totals('den');
      assert.equal(counted.turns, 1);
      assert.ok(counted.output_tokens > 0);
      await m.catchUp('den', 'claude', file);
      const promptId = all.map((l) => JSON.parse(l)).find((l) => l.type === 'user' && l.promptId).promptId;
      await m.onStop('den', 'claude', { transcript_path: file, prompt_id: promptId });
      assert.deepEqual(m.totals('den'), counted, 'counted once');
    } finally {
      close();
    }
  });

  it('a turn still running (its last line a tool call or its result) is left to its own Stop', async () => {
    const all = lines('bash-tool.jsonl');
    const lastToolUse = all.findLastIndex((l) => l.includes('"stop_reason":"tool_use"'));
    const running = all.slice(0, lastToolUse + 1);
    assert.equal(claudeLastTurnEnded(running), false);
    const file = path.join(tempDir('leo-usage-t-'), 't.jsonl');
    fs.writeFileSync(file, running.join('\n') + '\n');
    const { m, close } = meter();
    try {
      await m.catchUp('den', 'claude', file);
      assert.equal(m.totals('den').turns, 0);
    } finally {
      close();
    }
  });
});
