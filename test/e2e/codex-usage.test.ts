// Usage with the real Codex CLI (issue 18): a chat turn in Leo's tmux writes Codex's rollout, and the Stop hook's
// payload (transcript_path: the rollout, turn_id: the turn) is all Leo needs to count the turn's tokens as the model
// server reported them (cached input apart), price it from usage.prices, publish it, sum it in /api/v1/state and list it
// per day — once, however many times the Stop arrives.
//
// The Stop is posted here as Codex's own hook posts it (`leo hook stop` → POST /hooks/stop); Codex's hooks are
// installed by the Codex harness work (issue 18, Codex), whose Stop then counts for the same turn and is absorbed.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { HARNESS_MODEL, startHarnessAgent } from '../helpers/harness-agent.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';

const PRICE = { input: 1.25, output: 10, cache_read: 0.125 };
const COST = (500 * 1.25 + 60 * 10 + 1500 * 0.125) / 1e6;

describe('usage with a real codex agent', () => {
  it("a chat turn's usage, read from Codex's rollout, is counted once", { timeout: 120_000 }, async (t) => {
    const MARKER = 'LEO-USAGE-CODEX';
    const c = await startHarnessAgent(t, {
      harness: 'codex',
      agent: 'codex-usage',
      script: (req) =>
        JSON.stringify(req.body?.input ?? '').includes(MARKER)
          ? { text: 'Two moons.', usage: { input_tokens: 2000, cached: 1500, output_tokens: 60 } }
          : undefined,
      extraConfig: `usage:\n  prices:\n    ${HARNESS_MODEL}: ${JSON.stringify(PRICE)}\n`,
    });
    if (!c) return;
    const sse = await SseClient.open(c.d.tcp, '/api/v1/events', c.token);
    t.after(() => sse.close());
    const message = await c.send(`Count the moons, marker ${MARKER}`);
    await c.delivered(message.id);
    await c.withPane(until('the answer on screen', () => c.pane().includes('Two moons.'), 30_000, 200));

    // The rollout Codex wrote for this session, and the turn that answered the marker.
    const sessions = path.join(c.sandbox.env.CODEX_HOME!, 'sessions');
    const rollout = await until(
      'the turn in the rollout',
      () =>
        fs
          .readdirSync(sessions, { recursive: true })
          .map((f) => path.join(sessions, String(f)))
          .find((f) => f.endsWith('.jsonl') && fs.readFileSync(f, 'utf8').includes('"token_usage_record"')),
      10_000,
      200,
    );
    const lines = fs
      .readFileSync(rollout, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const turnId = lines.findLast((l) => l.type === 'token_usage_record').payload.turn_id;
    const stop = {
      agent: 'codex-usage',
      payload: { hook_event_name: 'Stop', session_id: 'x', turn_id: turnId, transcript_path: rollout },
    };
    for (let i = 0; i < 2; i++) {
      const r = await request(c.d.socket, 'POST', '/hooks/stop', { body: stop });
      assert.equal(r.status, 200, r.text);
    }
    const event = await until('agent_usage', () => sse.events.find((e) => e.event === 'agent_usage'), 10_000, 100);
    const expected = { input_tokens: 500, output_tokens: 60, cache_read_tokens: 1500, cache_write_tokens: 0 };
    const { cost_usd, ...tokens } = event.data.turn;
    assert.deepEqual(tokens, expected);
    assert.ok(Math.abs(cost_usd - COST) < 1e-12, `cost ${cost_usd}`);
    assert.equal(event.data.model, HARNESS_MODEL);
    await sleep(1500);
    assert.equal(sse.events.filter((e) => e.event === 'agent_usage').length, 1, 'counted once');

    const state = await request(c.d.tcp, 'GET', '/api/v1/state', { token: c.token });
    const agent = state.json.data.agents.find((a: any) => a.name === 'codex-usage');
    assert.deepEqual(agent.usage, { ...expected, cost_usd, turns: 1, unpriced_turns: 0 });
    const perDay = await request(c.d.tcp, 'GET', '/api/v1/agents/codex-usage/usage?days=1', { token: c.token });
    assert.deepEqual(perDay.json.data.days, [{ day: perDay.json.data.days[0].day, ...agent.usage }]);
  });
});
