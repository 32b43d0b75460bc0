// Late answers with the real Claude Code CLI (issue 27 item 3): once chat's wait for a permission prompt ends — its
// chat.permission_timeout passed, or the daemon restarted under it — Claude's own dialog is still up and the agent
// blocked. The prompt says so (expired, permission.terminal_waiting) and an answer from chat is pressed into that
// dialog: the tool runs, and the prompt records the answer. A dialog answered in the terminal closes the prompt.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { startClaudeAgent } from '../helpers/claude-agent.js';
import { promptViews, resultText, toolScript, touch, type ToolCall } from '../helpers/claude-prompts.js';
import { until } from '../helpers/wait.js';

const AGENT = 'claude-late';
/** A person reads the prompt before answering. */
const PERSON_PACE_MS = 5_000;

const SCENARIOS: Record<string, ToolCall> = {
  'LATE-ALLOW': touch('late-allow'),
  'LATE-TERMINAL': touch('late-terminal'),
  'RESTART-ALLOW': touch('restart-allow'),
};

describe('late answers to a real claude agent’s permission prompt', () => {
  it(
    'after the chat timeout and after a daemon restart, Allow from chat runs the tool; the terminal can still answer',
    { timeout: 240_000 },
    async (t) => {
      const c = await startClaudeAgent(t, { agent: AGENT, script: toolScript(SCENARIOS) });
      if (!c) return;
      const { d, withPane } = c;
      const workspace = path.join(c.sandbox.dir, 'workspace');
      const clock = d.clock as ManualClock;
      const { answer, begin, message, resultOf } = promptViews(c, AGENT, SCENARIOS);
      const waiting = (id: string) =>
        withPane(
          until(
            `prompt ${id} to wait in the terminal`,
            async () => {
              const m = await message(id);
              return m?.permission?.terminal_waiting ? m : undefined;
            },
            15_000,
            200,
          ),
        );

      // Chat's deadline passes minutes after the dialog was drawn; a loaded TUI can draw it seconds after the hook.
      const dialogDrawn = () =>
        withPane(until('Claude to draw its dialog', () => /Do you want/.test(c.pane()), 30_000, 200));

      // Chat's wait ends unanswered; the owner answers from the app seconds later.
      const late = await begin('LATE-ALLOW', 'permission');
      assert.ok(Date.parse(late.permission!.deadline!) > clock.now(), 'the prompt says when chat lets go');
      await dialogDrawn();
      clock.advance(120_000);
      const expired = await waiting(late.id);
      assert.equal(expired.state, 'expired');
      assert.match(c.pane(), /Do you want/, 'Claude still asks in its terminal');
      await sleep(PERSON_PACE_MS);
      const pressedAt = Date.now();
      const r = await answer(late.id, { values: ['allow'] });
      t.diagnostic(`Allow pressed into Claude's dialog and seen taken in ${Date.now() - pressedAt} ms`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual([r.json.data.state, r.json.data.answer], ['answered', { values: ['allow'], text: '' }]);
      assert.equal(r.json.data.permission.terminal_waiting, undefined);
      const allowed = await resultOf('LATE-ALLOW');
      assert.notEqual(allowed.is_error, true, resultText(allowed));
      assert.ok(fs.existsSync(path.join(workspace, 'late-allow.txt')), 'the allowed command ran');
      const again = await answer(late.id, { values: ['deny'] });
      assert.deepEqual([again.status, again.json.code], [409, 'answered_elsewhere']);

      // Answered in the terminal after chat let go: the prompt stops offering an answer, and a late one is told why.
      const term = await begin('LATE-TERMINAL', 'permission');
      await dialogDrawn();
      clock.advance(120_000);
      await waiting(term.id);
      await sleep(PERSON_PACE_MS);
      c.tmux('send-keys', '-t', `=leo-${AGENT}:`, 'Enter');
      await resultOf('LATE-TERMINAL');
      const closed = await withPane(
        until(
          'the prompt to close',
          async () => {
            const m = await message(term.id);
            return m && !m.permission?.terminal_waiting ? m : undefined;
          },
          15_000,
          200,
        ),
      );
      assert.equal(closed.state, 'expired');
      const tooLate = await answer(term.id, { values: ['allow'] });
      assert.deepEqual([tooLate.status, tooLate.json.code], [409, 'prompt_expired']);

      // The daemon restarts while the prompt is open: its hook died with it, Claude's dialog did not.
      const held = await begin('RESTART-ALLOW', 'permission');
      await dialogDrawn();
      await sleep(2_000);
      await d.restart();
      const restarted = await waiting(held.id);
      assert.equal(restarted.state, 'expired');
      await sleep(PERSON_PACE_MS);
      const r2 = await answer(held.id, { values: ['allow'] });
      assert.equal(r2.status, 200, r2.text);
      assert.notEqual((await resultOf('RESTART-ALLOW')).is_error, true);
      assert.ok(fs.existsSync(path.join(workspace, 'restart-allow.txt')), 'the command allowed after the restart ran');
    },
  );
});

const SESSION: Record<string, ToolCall> = {
  'SESSION-FIRST': touch('session'),
  'SESSION-AGAIN': { ...touch('session'), id: 'toolu_touch_session_again' },
};

describe('"Allow for this session" on a real claude agent’s permission prompt (issue 27, low)', () => {
  it(
    'hands Claude its own suggested rules for the session: the same call again asks no more',
    { timeout: 180_000 },
    async (t) => {
      const c = await startClaudeAgent(t, { agent: 'claude-session', script: toolScript(SESSION) });
      if (!c) return;
      const { answer, begin, resultOf } = promptViews(c, 'claude-session', SESSION);
      const first = await begin('SESSION-FIRST', 'permission');
      assert.equal(first.permission?.allow_session, true, 'Claude suggested rules, so the prompt offers them');
      await sleep(2_000);
      const r = await answer(first.id, { values: ['allow_session'] });
      assert.equal(r.status, 200, r.text);
      assert.notEqual((await resultOf('SESSION-FIRST')).is_error, true);

      const before = (await c.thread()).filter((m) => m.kind === 'permission').length;
      const again = await c.send('SESSION-AGAIN: do the thing');
      await c.delivered(again.id);
      const result = await resultOf('SESSION-AGAIN');
      assert.notEqual(result.is_error, true, resultText(result));
      assert.equal((await c.thread()).filter((m) => m.kind === 'permission').length, before, 'no second prompt');
      const local = path.join(c.sandbox.dir, 'workspace', '.claude', 'settings.local.json');
      assert.equal(fs.existsSync(local), false, 'nothing was written into the project’s settings');
    },
  );
});
