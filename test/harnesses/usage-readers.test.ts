// The per-harness usage readers over what each real CLI writes: Claude's transcripts (test/fixtures/transcripts,
// claude 2.1.328), Codex's rollout (test/fixtures/codex-rollouts, codex 0.171.0) and opencode's stop payload contract.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { claudeTurnUsage } from '../../src/harnesses/claude/usage.js';
import { codexTurnUsage } from '../../src/harnesses/codex/usage.js';
import { opencodeTurnUsage } from '../../src/harnesses/opencode/usage.js';
import { pricedUsage } from '../../src/usage/pricing.js';

const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures');
const lines = (f: string) => fs.readFileSync(path.join(fixtures, f), 'utf8').split('\n');
const json = (f: string) =>
  lines(f)
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

describe('Claude transcript usage', () => {
  it('sums the distinct API messages of the turn: blocks of one message repeat its usage and count once', () => {
    const file = 'transcripts/bash-tool.jsonl';
    const promptId = json(file).find((l) => l.type === 'user').promptId;
    const turn = claudeTurnUsage(lines(file), promptId);
    // msg_leo_3 (text + Bash, two lines) and msg_leo_5 (the closing text), as Claude recorded them.
    assert.deepEqual(turn, {
      key: promptId,
      model: 'claude-opus-5-5',
      tokens: { input_tokens: 12268 + 12335, output_tokens: 15 + 5, cache_read_tokens: 0, cache_write_tokens: 0 },
    });
    assert.deepEqual(claudeTurnUsage(lines(file)), turn, 'without a prompt id: the last turn');
  });

  it('picks the turn the Stop names among several, and nothing for a turn the transcript does not hold', () => {
    const file = 'transcripts/sdk-two-prompts.jsonl';
    const ids = [...new Set(json(file).flatMap((l) => (l.type === 'user' && l.promptId ? [l.promptId] : [])))];
    assert.equal(ids.length, 2);
    const [first, second] = ids.map((id) => claudeTurnUsage(lines(file), id));
    assert.equal(first?.key, ids[0]);
    assert.equal(second?.key, ids[1]);
    assert.ok(first!.tokens.input_tokens > 0 && second!.tokens.input_tokens > 0);
    assert.notDeepEqual(first, second);
    assert.equal(claudeTurnUsage(lines(file), 'no-such-prompt'), null);
  });

  it('reads cache reads and writes, and survives torn and foreign lines', () => {
    const user = JSON.stringify({ type: 'user', promptId: 'p1', message: { role: 'user', content: 'hi' } });
    const usage = { input_tokens: 3, output_tokens: 7, cache_read_input_tokens: 500, cache_creation_input_tokens: 40 };
    const assistant = JSON.stringify({ type: 'assistant', message: { id: 'm1', model: 'claude-x', usage } });
    const turn = claudeTurnUsage([user, '{"type":"assis', 'not json', assistant, '{"type":"system"}']);
    assert.deepEqual(turn?.tokens, {
      input_tokens: 3,
      output_tokens: 7,
      cache_read_tokens: 500,
      cache_write_tokens: 40,
    });
    assert.equal(claudeTurnUsage([user]), null, 'a turn with no model call has no usage');
  });
});

describe('Codex rollout usage', () => {
  const file = 'codex-rollouts/exec-two-turns.jsonl';
  const records = json(file).filter((l) => l.type === 'token_usage_record');

  it("takes the named turn's running sum from its last token_usage_record, with the turn's model", () => {
    assert.equal(records.length, 2);
    const [a, b] = records.map((r) => r.payload.turn_id as string);
    const first = codexTurnUsage(lines(file), a);
    assert.deepEqual(first, {
      key: a,
      model: 'gpt-test',
      tokens: {
        input_tokens: records[0].payload.turn_token_usage.input_tokens,
        output_tokens: records[0].payload.turn_token_usage.output_tokens,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
      },
    });
    assert.equal(codexTurnUsage(lines(file))?.key, b, 'without a turn id: the last turn');
    assert.equal(codexTurnUsage(lines(file), 'no-such-turn'), null);
  });

  it('counts cached input once, as cache reads, not inside input_tokens', () => {
    const record = {
      type: 'token_usage_record',
      payload: {
        turn_id: 't1',
        turn_token_usage: {
          input_tokens: 1000,
          cached_input_tokens: 800,
          cache_write_input_tokens: 0,
          output_tokens: 9,
        },
      },
    };
    assert.deepEqual(codexTurnUsage([JSON.stringify(record)])?.tokens, {
      input_tokens: 200,
      output_tokens: 9,
      cache_read_tokens: 800,
      cache_write_tokens: 0,
    });
  });
});

describe('opencode stop payload usage', () => {
  const usage = {
    input_tokens: 120,
    output_tokens: 30,
    cache_read_tokens: 900,
    cache_write_tokens: 5,
    cost_usd: 0.0042,
  };

  it("takes the plugin's usage object as is, keyed by its turn id, with the cost opencode computed", () => {
    assert.deepEqual(opencodeTurnUsage({ usage, turn_id: 'msg_1', model: 'p/m' }), {
      key: 'msg_1',
      model: 'p/m',
      tokens: { input_tokens: 120, output_tokens: 30, cache_read_tokens: 900, cache_write_tokens: 5 },
      cost_usd: 0.0042,
    });
    assert.equal(opencodeTurnUsage({ usage: { ...usage, cost_usd: null } })?.cost_usd, null);
  });

  it('keys a turn without an id by the payload, so the same Stop twice is the same turn', () => {
    const a = opencodeTurnUsage({ usage, session_id: 's' });
    assert.equal(a?.key, opencodeTurnUsage({ usage, session_id: 's' })?.key);
    assert.notEqual(a?.key, opencodeTurnUsage({ usage: { ...usage, output_tokens: 31 }, session_id: 's' })?.key);
  });

  it('refuses a usage that is not the contract shape', () => {
    for (const bad of [
      undefined,
      {},
      { ...usage, input_tokens: -1 },
      { ...usage, output_tokens: '3' },
      { ...usage, extra: 1 },
    ])
      assert.equal(opencodeTurnUsage({ usage: bad }), null, JSON.stringify(bad));
  });
});

describe('pricing', () => {
  const tokens = {
    input_tokens: 1_000_000,
    output_tokens: 100_000,
    cache_read_tokens: 2_000_000,
    cache_write_tokens: 0,
  };

  it('prices a turn from usage.prices by its model, cache reads at their own price or the input price', () => {
    const prices = { m: { input: 3, output: 15, cache_read: 0.3 }, n: { input: 1, output: 2 } };
    assert.equal(
      pricedUsage({ key: 'k', model: 'm', tokens }, prices).cost_usd?.toFixed(4),
      (3 + 1.5 + 0.6).toFixed(4),
    );
    assert.equal(pricedUsage({ key: 'k', model: 'n', tokens }, prices).cost_usd?.toFixed(4), (1 + 0.2 + 2).toFixed(4));
  });

  it('prices a dated model name by the longest key it extends', () => {
    const prices = { 'claude-sonnet': { input: 9, output: 9 }, 'claude-sonnet-4-5': { input: 3, output: 15 } };
    const dated = { key: 'k', model: 'claude-sonnet-4-5-20250929', tokens };
    assert.equal(pricedUsage(dated, prices).cost_usd?.toFixed(4), (3 + 1.5 + 2 * 3).toFixed(4));
    assert.equal(
      pricedUsage({ ...dated, model: 'claude-sonnet-4-50' }, { 'claude-sonnet-4-5': { input: 3, output: 15 } })
        .cost_usd,
      null,
    );
    assert.equal(pricedUsage({ ...dated, model: 'toString' }, {}).cost_usd, null);
  });

  it('leaves an unpriced model at null, and keeps a cost the harness reported', () => {
    assert.equal(pricedUsage({ key: 'k', model: 'other', tokens }, {}).cost_usd, null);
    assert.equal(pricedUsage({ key: 'k', model: null, tokens }, { m: { input: 1, output: 1 } }).cost_usd, null);
    assert.equal(
      pricedUsage({ key: 'k', model: 'm', tokens, cost_usd: 0.5 }, { m: { input: 9, output: 9 } }).cost_usd,
      0.5,
    );
    // opencode saying it has no cost leaves it to the price list.
    const free = { key: 'k', model: 'm', tokens, cost_usd: null };
    assert.equal(pricedUsage(free, { m: { input: 1, output: 0 } }).cost_usd, 3);
  });
});
