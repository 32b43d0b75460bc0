// Usage and instructions with the real Claude Code CLI (issue 18): Claude's requests carry Leo's instructions in their
// system prompt; after a chat turn the turn's tokens (as the API reported them, read back from Claude's transcript)
// and its cost (from usage.prices) are published as agent_usage, summed in /api/v1/state and listed per day, and a
// Stop hook delivered again counts nothing more.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { leoInstructions } from '../../src/harnesses/instructions.js';
import { isAgentTurn, lastUserMessage, mentions } from '../helpers/anthropic-server.js';
import { MODEL, startClaudeAgent } from '../helpers/claude-agent.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';

const REPORTED = {
  input_tokens: 1234,
  cache_read_input_tokens: 5000,
  cache_creation_input_tokens: 300,
  output_tokens: 77,
};
// USD per million tokens.
const PRICE = { input: 3, output: 15, cache_read: 0.3, cache_write: 3.75 };
const COST = (1234 * 3 + 77 * 15 + 5000 * 0.3 + 300 * 3.75) / 1e6;

describe('usage and instructions with a real claude agent', () => {
  it(
    "a chat turn's usage is in the event, the state and the per-day route, once; the model was told about Leo Chat",
    { timeout: 120_000 },
    async (t) => {
      const MARKER = 'LEO-USAGE-1';
      const c = await startClaudeAgent(t, {
        agent: 'claude-usage',
        script: (req, { sideRequest }) =>
          !sideRequest && mentions(lastUserMessage(req.body), MARKER)
            ? { text: 'Three moons, and that is all.', usage: REPORTED }
            : undefined,
        extraConfig: `usage:\n  prices:\n    ${MODEL}: ${JSON.stringify(PRICE)}\n`,
      });
      if (!c) return;
      const sse = await SseClient.open(c.d.tcp, '/api/v1/events', c.token);
      t.after(() => sse.close());
      const hello = await until('hello', () => sse.events.find((e) => e.event === 'hello'), 5000);
      assert.ok(hello.data.features.includes('agent_usage'), JSON.stringify(hello.data.features));

      const message = await c.send(`Count the moons, marker ${MARKER}`);
      await c.delivered(message.id);
      await c.withPane(
        until(
          'the reply',
          async () => (await c.thread()).find((m) => m.direction === 'out' && m.text.startsWith('Three moons')),
          30_000,
          200,
        ),
      );

      // The instructions: appended to Claude's system prompt in the turn's request, never typed as a prompt.
      const turn = c.api
        .messageRequests()
        .find((r) => isAgentTurn(r.body) && mentions(lastUserMessage(r.body), MARKER));
      assert.ok(turn, 'the turn reached the model');
      const instructions = leoInstructions('claude', {}).trim();
      assert.ok(JSON.stringify(turn.body.system).includes(JSON.stringify(instructions).slice(1, -1)), 'in system');
      assert.ok(!c.api.prompts().some((p) => p.includes('Leo Chat, a chat thread')), 'not typed');

      const expected = {
        input_tokens: 1234,
        output_tokens: 77,
        cache_read_tokens: 5000,
        cache_write_tokens: 300,
      };
      const event = await c.withPane(
        until('agent_usage', () => sse.events.find((e) => e.event === 'agent_usage'), 15_000, 100),
      );
      assert.equal(event.data.agent, 'claude-usage');
      assert.equal(event.data.harness, 'claude');
      assert.equal(event.data.model, MODEL);
      const { cost_usd, ...tokens } = event.data.turn;
      assert.deepEqual(tokens, expected);
      assert.ok(Math.abs(cost_usd - COST) < 1e-12, `cost ${cost_usd}`);
      assert.equal(event.data.totals.turns, 1);

      const state = await request(c.d.tcp, 'GET', '/api/v1/state', { token: c.token });
      const agent = state.json.data.agents.find((a: any) => a.name === 'claude-usage');
      assert.deepEqual(agent.usage, { ...expected, cost_usd, turns: 1, unpriced_turns: 0 });

      const perDay = await request(c.d.tcp, 'GET', '/api/v1/agents/claude-usage/usage?days=3', { token: c.token });
      assert.equal(perDay.status, 200, perDay.text);
      assert.equal(perDay.json.data.days.length, 3);
      const today = perDay.json.data.days.at(-1);
      assert.equal(today.day, new Date(c.d.clock.now()).toISOString().slice(0, 10));
      assert.deepEqual(today, { day: today.day, ...agent.usage });
      assert.deepEqual(perDay.json.data.totals, agent.usage);

      // The same Stop again (a hook retried, or delivered after a restart) is the same turn: nothing is added.
      const prompt = c.transcriptLines(MARKER).find((l) => l.type === 'user');
      const projects = path.join(c.sandbox.configDir, 'projects');
      const transcript = fs
        .readdirSync(projects, { recursive: true })
        .map((f) => path.join(projects, String(f)))
        .find((f) => f.endsWith('.jsonl') && fs.readFileSync(f, 'utf8').includes(MARKER))!;
      const replay = await request(c.d.socket, 'POST', '/hooks/stop', {
        body: {
          agent: 'claude-usage',
          payload: { hook_event_name: 'Stop', transcript_path: transcript, prompt_id: prompt.promptId },
        },
      });
      assert.equal(replay.status, 200, replay.text);
      await sleep(1500);
      assert.equal(sse.events.filter((e) => e.event === 'agent_usage').length, 1);
      const again = await request(c.d.tcp, 'GET', '/api/v1/state', { token: c.token });
      assert.equal(again.json.data.agents.find((a: any) => a.name === 'claude-usage').usage.turns, 1);
    },
  );
});
