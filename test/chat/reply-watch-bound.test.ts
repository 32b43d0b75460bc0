import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_AWAITING_PER_AGENT, ReplyWatch } from '../../src/chat/reply-watch.js';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';

/** A watch whose capture records which prompts a Stop asked about, and finds none of them in the transcript. */
function watch(clock: ManualClock) {
  const asked: string[] = [];
  const w = new ReplyWatch({
    clock,
    logger: createLogger('silent'),
    capture: async (input) => {
      asked.push(input.prompt);
      return { kind: 'not_found' } as never;
    },
    post: () => {},
  });
  return { w, asked };
}

describe('reply watch: prompts of an agent that never sends Stop do not pile up', () => {
  it(`keeps only the newest ${MAX_AWAITING_PER_AGENT} prompts of an agent`, async () => {
    const clock = new ManualClock();
    const { w, asked } = watch(clock);
    for (let i = 0; i < MAX_AWAITING_PER_AGENT + 50; i++) w.delivered('sh', `m${i}`, `prompt ${i}`);
    await w.onStop('sh', { transcript_path: '/nowhere.jsonl' });
    assert.equal(asked.length, MAX_AWAITING_PER_AGENT);
    assert.deepEqual([asked[0], asked.at(-1)], ['prompt 50', `prompt ${MAX_AWAITING_PER_AGENT + 49}`]);
  });

  it('keeps each agent to its own bound', async () => {
    const clock = new ManualClock();
    const { w, asked } = watch(clock);
    for (let i = 0; i < MAX_AWAITING_PER_AGENT; i++) w.delivered('busy', `b${i}`, `busy ${i}`);
    w.delivered('quiet', 'q', 'quiet 0');
    await w.onStop('quiet', { transcript_path: '/nowhere.jsonl' });
    await w.onStop('busy', { transcript_path: '/nowhere.jsonl' });
    assert.equal(asked.length, MAX_AWAITING_PER_AGENT + 1);
  });
});
