// Permission prompts and questions cards end to end with the real Claude Code CLI in tmux against the scripted API
// server (leo-chat.md, "Permission prompts", "Questions cards"): Claude's PermissionRequest hook runs `leo hook
// permission-request`, the daemon posts the prompt into the thread, and the answer given in chat (or in the
// terminal, or none at all) decides what Claude does with the tool call.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ManualClock } from '../../src/core/clock.js';
import { isAgentTurn, lastUserMessage, mentions, toolResult } from '../helpers/anthropic-server.js';
import { startClaudeAgent, type ChatMessage } from '../helpers/claude-agent.js';
import { request } from '../helpers/http.js';
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

/** Each scenario: the prompt that starts it, the tool call Claude is scripted to make, and its id. */
const TOUCH = (name: string) => ({
  name: 'Bash',
  id: `toolu_touch_${name}`,
  input: { command: `touch ${name}.txt`, description: `Create ${name}.txt` },
});
const SCENARIOS: Record<string, { name: string; id: string; input: unknown }> = {
  'PERM-ALLOW': TOUCH('allowed'),
  'PERM-DENY': TOUCH('denied'),
  'PERM-TERMINAL': TOUCH('terminal'),
  'PERM-TIMEOUT': TOUCH('timeout'),
  'ASK-CARD': { name: 'AskUserQuestion', id: 'toolu_questions', input: { questions: QUESTIONS } },
};

describe('permission prompts with a real claude agent', () => {
  it(
    'allow, deny, terminal and timeout on a permission prompt; a questions card answered in chat',
    { timeout: 240_000 },
    async (t) => {
      const started = Date.now();
      const c = await startClaudeAgent(t, {
        agent: AGENT,
        script: (req, { sideRequest }) => {
          if (sideRequest) return undefined;
          const last = lastUserMessage(req.body);
          for (const [marker, tool] of Object.entries(SCENARIOS)) {
            if (toolResult(last, tool.id)) return { text: `${marker} over` };
            if (mentions(last, marker)) return { toolUse: tool };
          }
          return undefined;
        },
      });
      if (!c) return;
      const { api, d, token, withPane } = c;
      const workspace = path.join(c.sandbox.dir, 'workspace');
      const clock = d.clock as ManualClock;
      const answer = (id: string, body: unknown) =>
        request(d.tcp, 'POST', `/api/v1/chat/${AGENT}/messages/${id}/answer`, { token, body });
      /** Starts a scenario and returns the open prompt (or card) the hook posted for its tool call. */
      const begin = async (marker: string, kind: 'permission' | 'ask'): Promise<ChatMessage> => {
        const seen = new Set((await c.thread()).map((m) => m.id));
        const m = await c.send(`${marker}: do the thing`);
        await c.delivered(m.id);
        return withPane(
          until(
            `the ${kind} message for ${marker}`,
            async () => (await c.thread()).find((x) => !seen.has(x.id) && x.kind === kind && x.state === 'open'),
            30_000,
            200,
          ),
        );
      };
      /** The model request that carries the tool's result back, once Claude has one. */
      const resultOf = async (marker: string) => {
        const id = SCENARIOS[marker]!.id;
        const r = await withPane(
          api.waitForRequest(
            (x) => x.body?.stream === true && isAgentTurn(x.body) && toolResult(lastUserMessage(x.body), id),
            30_000,
          ),
        );
        return toolResult(lastUserMessage(r.body), id);
      };
      const settled = (id: string) =>
        until(
          `message ${id} to settle`,
          async () => {
            const m = (await c.thread()).find((x) => x.id === id);
            return m && m.state !== 'open' ? m : undefined;
          },
          15_000,
          200,
        );
      const resultText = (r: any) =>
        typeof r.content === 'string' ? r.content : JSON.stringify(r.content ?? '').replace(/\\n/g, '\n');

      // Allow from chat: the dialog closes and the command runs.
      const allow = await begin('PERM-ALLOW', 'permission');
      assert.deepEqual(allow.permission, { tool: 'Bash', summary: 'touch allowed.txt (Create allowed.txt)' });
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
      c.tmux('send-keys', '-t', `=leo-${AGENT}:`, 'Enter');
      const byTerminal = await withPane(settled(term.id));
      assert.deepEqual([byTerminal.state, byTerminal.answer], ['answered', { values: ['terminal'], text: '' }]);
      assert.notEqual((await resultOf('PERM-TERMINAL')).is_error, true);
      assert.ok(fs.existsSync(path.join(workspace, 'terminal.txt')));

      // No answer in time: the prompt expires and Claude's dialog stays up for the terminal.
      const late = await begin('PERM-TIMEOUT', 'permission');
      clock.advance(120_000);
      const expired = await settled(late.id);
      assert.deepEqual([expired.state, expired.closed_reason], ['expired', undefined]);
      await new Promise((r) => setTimeout(r, 1000));
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
