import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ReplyStore } from '../../../src/chat/replies/reply-store.js';
import { MAX_AWAITING_PER_AGENT, ReplyWatch } from '../../../src/chat/replies/reply-watch.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/logger.js';
import { openDatabase } from '../../../src/store/database.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-reply-bound-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A watch whose capture records which prompts a Stop asked about, and finds none of them in the transcript. */
function watch(clock: ManualClock) {
  const asked: string[] = [];
  const w = new ReplyWatch({
    clock,
    logger: createLogger('silent'),
    store: new ReplyStore(openDatabase(path.join(dir, `${Math.random()}.db`))),
    exists: () => true,
    format: () => 'claude' as const,
    capture: async (input) => {
      asked.push(...input.prompts.map((p) => p.prompt));
      return input.prompts.map(() => ({ result: { kind: 'not_found' as const } }));
    },
    postedAfter: () => false,
    post: () => {},
    unanswered: () => {},
  });
  const deliver = (agent: string, id: string, text: string) => {
    w.started(agent, id, text);
    w.delivered(agent, id);
  };
  return { w, asked, deliver };
}

describe('reply watch: prompts of an agent that never sends Stop do not pile up', () => {
  it(`keeps only the newest ${MAX_AWAITING_PER_AGENT} prompts of an agent`, async () => {
    const clock = new ManualClock();
    const { w, asked, deliver } = watch(clock);
    for (let i = 0; i < MAX_AWAITING_PER_AGENT + 50; i++) deliver('sh', `m${i}`, `prompt ${i}`);
    await w.onStop('sh', { transcript_path: '/nowhere.jsonl' });
    assert.equal(asked.length, MAX_AWAITING_PER_AGENT);
    assert.deepEqual([asked[0], asked.at(-1)], ['prompt 50', `prompt ${MAX_AWAITING_PER_AGENT + 49}`]);
  });

  it('keeps each agent to its own bound', async () => {
    const clock = new ManualClock();
    const { w, asked, deliver } = watch(clock);
    for (let i = 0; i < MAX_AWAITING_PER_AGENT; i++) deliver('busy', `b${i}`, `busy ${i}`);
    deliver('quiet', 'q', 'quiet 0');
    await w.onStop('quiet', { transcript_path: '/nowhere.jsonl' });
    await w.onStop('busy', { transcript_path: '/nowhere.jsonl' });
    assert.equal(asked.length, MAX_AWAITING_PER_AGENT + 1);
  });

  it('a prompt never found stops waiting after 30 minutes', async () => {
    const clock = new ManualClock();
    const { w, asked, deliver } = watch(clock);
    deliver('sh', 'm', 'lost prompt');
    await w.onStop('sh', { transcript_path: '/nowhere.jsonl' });
    clock.advance(30 * 60_000 + 1);
    await w.onStop('sh', { transcript_path: '/nowhere.jsonl' });
    await w.onStop('sh', { transcript_path: '/nowhere.jsonl' });
    assert.deepEqual(asked, ['lost prompt', 'lost prompt']);
  });
});
