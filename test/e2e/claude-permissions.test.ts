// Permission prompts and questions cards end to end with the real Claude Code CLI in tmux against the scripted API
// server (leo-chat.md, "Permission prompts", "Questions cards"): Claude's PermissionRequest hook runs `leo hook
// permission-request`, the daemon posts the prompt into the thread, and the answer given in chat (or in the
// terminal, or none at all) decides what Claude does with the tool call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { startClaudeAgent } from '../helpers/claude-agent.js';
import { askQuestions, promptViews, resultText, toolScript, touch, type ToolCall } from '../helpers/claude-prompts.js';
import { until } from '../helpers/wait.js';

const AGENT = 'claude-perm-e2e';
const QUESTIONS = [
  {
    question: 'Which size should the cache be?',
    header: 'Size',
    multiSelect: false,
    options: [
      { label: 'Small', description: '64 MiB' },
      { label: 'Large', description: '1 GiB' },
    ],
  },
];

/** Each scenario: the marker that starts it and the tool call Claude is scripted to make. */
const SCENARIOS: Record<string, ToolCall> = {
  'PERM-ALLOW': touch('allowed'),
  'PERM-DENY': touch('denied'),
  'PERM-TERMINAL': touch('terminal'),
  'PERM-TIMEOUT': touch('timeout'),
  'ASK-CARD': askQuestions('toolu_questions', QUESTIONS),
};

describe('permission prompts with a real claude agent', () => {
  it(
    'allow, deny, terminal and timeout on a permission prompt; a questions card answered in chat',
    { timeout: 240_000 },
    async (t) => {
      const started = Date.now();
      const c = await startClaudeAgent(t, {
        agent: AGENT,
        script: toolScript(SCENARIOS),
      });
      if (!c) return;
      const { d, withPane } = c;
      const workspace = path.join(c.sandbox.dir, 'workspace');
      const clock = d.clock as ManualClock;
      const { answer, begin, resultOf, settled } = promptViews(c, AGENT, SCENARIOS);

      // Allow from chat: the dialog closes and the command runs.
      const allow = await begin('PERM-ALLOW', 'permission');
      assert.deepEqual(
        { ...allow.permission, deadline: undefined },
        {
          tool: 'Bash',
          deadline: undefined,
          allow_session: true,
          summary: 'touch allowed.txt (Create allowed.txt)',
          full_input: 'touch allowed.txt',
        },
      );
      assert.equal((await answer(allow.id, { values: ['allow'] })).status, 200);
      const allowed = await resultOf('PERM-ALLOW');
      assert.notEqual(allowed.is_error, true, resultText(allowed));
      assert.ok(fs.existsSync(path.join(workspace, 'allowed.txt')), 'the allowed command ran');

      // Deny from chat: the tool is refused with the reason, and nothing runs.
      const deny = await begin('PERM-DENY', 'permission');
      assert.equal((await answer(deny.id, { values: ['deny'], text: 'not now' })).status, 200);
      const denied = await resultOf('PERM-DENY');
      assert.equal(denied.is_error, true);
      assert.match(resultText(denied), /Denied from Leo Chat: not now/);
      assert.equal(fs.existsSync(path.join(workspace, 'denied.txt')), false);

      // Answered in the terminal: the command runs, and the turn's end (Claude leaves the hook running) records
      // "terminal" on the prompt.
      const term = await begin('PERM-TERMINAL', 'permission');
      await withPane(until('the terminal dialog', () => /Do you want/.test(c.pane()), 10_000));
      // At a person's pace: a key pressed the moment the dialog is drawn can be lost to a loaded machine's TUI (CI
      // saw the dialog stand after it), so the person looks again and presses once more.
      for (let press = 0; press < 3 && /Do you want/.test(c.pane()); press++) {
        await sleep(press === 0 ? 1_000 : 3_000);
        if (/Do you want/.test(c.pane())) c.tmux('send-keys', '-t', `=leo-${AGENT}:`, 'Enter');
      }
      const byTerminal = await withPane(settled(term.id));
      assert.deepEqual([byTerminal.state, byTerminal.answer], ['answered', { values: ['terminal'], text: '' }]);
      assert.notEqual((await resultOf('PERM-TERMINAL')).is_error, true);
      assert.ok(fs.existsSync(path.join(workspace, 'terminal.txt')));

      // No answer in time: the prompt expires and Claude's dialog stays up for the terminal.
      const late = await begin('PERM-TIMEOUT', 'permission');
      clock.advance(120_000);
      const expired = await settled(late.id);
      assert.deepEqual([expired.state, expired.closed_reason], ['expired', undefined]);
      await sleep(1000);
      assert.match(c.pane(), /Do you want/, 'the terminal dialog still stands');
      assert.equal(fs.existsSync(path.join(workspace, 'timeout.txt')), false);
      // The terminal still answers it; an expired prompt stays expired when the turn then ends.
      c.tmux('send-keys', '-t', `=leo-${AGENT}:`, 'Enter');
      assert.notEqual((await resultOf('PERM-TIMEOUT')).is_error, true);
      assert.ok(fs.existsSync(path.join(workspace, 'timeout.txt')));
      assert.equal((await c.thread()).find((m) => m.id === late.id)?.state, 'expired');

      // AskUserQuestion: one questions card; the answer from chat reaches Claude as the tool's result.
      const card = await begin('ASK-CARD', 'ask');
      assert.equal(card.input.type, 'questions');
      assert.deepEqual(
        card.input.questions.map((q: any) => [q.id, q.question, q.options.map((o: any) => o.label)]),
        [['q1', 'Which size should the cache be?', ['Small', 'Large']]],
      );
      const r = await answer(card.id, { answers: { q1: { values: ['Large'] } } });
      assert.equal(r.status, 200, r.text);
      const answered = await resultOf('ASK-CARD');
      assert.notEqual(answered.is_error, true, resultText(answered));
      assert.match(resultText(answered), /Which size should the cache be\?.*Large/s);
      t.diagnostic(`AskUserQuestion result Claude got: ${resultText(answered).slice(0, 300)}`);
      t.diagnostic(`ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  );
});
