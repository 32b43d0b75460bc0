// A person answers a permission prompt or a questions card when they get to it, not at once (issue 14 item 1): with
// the real Claude Code CLI, each prompt here is left 8 s of real time — past the 5 s after which Node's global http
// agent cut the hook's request, which the daemon read as "answered in the terminal" — before chat answers it or
// chat.permission_timeout passes on the daemon's ManualClock. The daemon's web.request_timeout is 2 s, so the held
// hook also outlives that.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { startClaudeAgent, type ChatMessage } from '../helpers/claude-agent.js';
import { askQuestions, promptViews, resultText, toolScript, touch, type ToolCall } from '../helpers/claude-prompts.js';

const AGENT = 'claude-held-e2e';
const PACE_MS = 8000;
const PERMISSION_TIMEOUT_MS = 120_000;
const SCENARIOS: Record<string, ToolCall> = {
  'HELD-ALLOW': touch('allowed'),
  'HELD-CARD': askQuestions('toolu_held_card', [
    {
      question: 'Which region?',
      header: 'Region',
      multiSelect: false,
      options: [
        { label: 'North', description: 'eu-north' },
        { label: 'South', description: 'eu-south' },
      ],
    },
  ]),
  'HELD-TIMEOUT': touch('unanswered'),
};

describe('permission prompts and questions cards answered at a person’s pace, with a real claude agent', () => {
  it(
    'allow and a card answered after 8 s decide the tool call; unanswered, the prompt expires',
    { timeout: 180_000 },
    async (t) => {
      const started = Date.now();
      const c = await startClaudeAgent(t, {
        agent: AGENT,
        script: toolScript(SCENARIOS),
        web: '  request_timeout: 2s\n',
      });
      if (!c) return;
      const workspace = path.join(c.sandbox.dir, 'workspace');
      const clock = c.d.clock as ManualClock;
      const { answer, begin, message, resultOf, settled } = promptViews(c, AGENT, SCENARIOS);
      /** A person's pace: the prompt waits PACE_MS, and is still open for chat afterwards. */
      const wait = async (m: ChatMessage) => {
        await sleep(PACE_MS);
        const now = await message(m.id);
        assert.deepEqual(
          [now?.state, now?.answer],
          ['open', undefined],
          `after ${PACE_MS} ms the prompt is still open`,
        );
      };

      const allow = await begin('HELD-ALLOW', 'permission');
      await wait(allow);
      assert.equal((await answer(allow.id, { values: ['allow'] })).status, 200);
      const allowed = await resultOf('HELD-ALLOW');
      assert.notEqual(allowed.is_error, true, resultText(allowed));
      assert.ok(fs.existsSync(path.join(workspace, 'allowed.txt')), 'the allowed command ran');

      const card = await begin('HELD-CARD', 'ask');
      await wait(card);
      const r = await answer(card.id, { answers: { q1: { values: ['South'] } } });
      assert.equal(r.status, 200, r.text);
      const picked = await resultOf('HELD-CARD');
      assert.notEqual(picked.is_error, true, resultText(picked));
      assert.match(resultText(picked), /Which region\?.*South/s);

      // Left unanswered: it expires at chat.permission_timeout, and Claude's own dialog is still there to answer.
      const late = await begin('HELD-TIMEOUT', 'permission');
      await wait(late);
      clock.advance(PERMISSION_TIMEOUT_MS);
      const expired = await settled(late.id);
      assert.deepEqual([expired.state, expired.answer], ['expired', undefined]);
      await sleep(1000);
      assert.match(c.pane(), /Do you want/, 'the terminal dialog still stands');
      assert.equal(fs.existsSync(path.join(workspace, 'unanswered.txt')), false);
      t.diagnostic(`ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  );
});
