import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseOverrides, resolveSettings } from '../../src/sessions/overrides.js';

function failsOn(value: unknown, field: string, path?: string): string {
  const r = path === undefined ? parseOverrides(value) : parseOverrides(value, path);
  assert.equal(r.ok, false, `${JSON.stringify(value)} should fail on ${field}`);
  if (r.ok) return '';
  assert.equal(r.code, 'VALIDATION_ERROR');
  assert.deepEqual(r.details, { field });
  assert.ok(r.message.startsWith(`${field}: `), r.message);
  return r.message;
}

describe('parseOverrides', () => {
  it('accepts the whole whitelist, and an empty object', () => {
    const all = {
      model: 'anthropic/claude-opus-4-5',
      temperature: 0.2,
      max_tokens: 1024,
      reasoning: { effort: 'high', max_tokens: 4000 },
    };
    assert.deepEqual(parseOverrides(all), { ok: true, value: all });
    assert.deepEqual(parseOverrides({}), { ok: true, value: {} });
    assert.deepEqual(parseOverrides({ temperature: 0 }), { ok: true, value: { temperature: 0 } });
    assert.deepEqual(parseOverrides({ temperature: 2 }), { ok: true, value: { temperature: 2 } });
    assert.deepEqual(parseOverrides({ reasoning: { effort: 'none' } }), {
      ok: true,
      value: { reasoning: { effort: 'none' } },
    });
  });

  it('refuses a non-object', () => {
    for (const v of [null, [], 'model', 3]) failsOn(v, 'overrides');
  });

  it('refuses unknown fields, naming them', () => {
    assert.match(
      failsOn({ model: 'x', colour: 'red' }, 'overrides.colour'),
      /unknown field.*model, temperature, max_tokens, reasoning/,
    );
  });

  it('refuses the legacy effort and thinking keys, pointing at reasoning', () => {
    assert.match(failsOn({ effort: 'high' }, 'overrides.effort'), /reasoning/);
    assert.match(failsOn({ thinking: { type: 'enabled' } }, 'overrides.thinking'), /reasoning/);
  });

  it('refuses the bare-string reasoning', () => {
    assert.match(failsOn({ reasoning: 'high' }, 'overrides.reasoning'), /bare-string/);
  });

  it("refuses the agent's identity fields and top_p", () => {
    for (const key of ['tools', 'permissions', 'mcpServers', 'modes', 'skills', 'disallowedTools']) {
      assert.match(failsOn({ [key]: [] }, `overrides.${key}`), /identity/);
    }
    failsOn({ top_p: 0.9 }, 'overrides.top_p');
  });

  it('checks each value', () => {
    for (const t of [-0.1, 2.01, '1', null]) failsOn({ temperature: t }, 'overrides.temperature');
    for (const m of [0, -5, 1.5, '10']) failsOn({ max_tokens: m }, 'overrides.max_tokens');
    for (const m of ['', 5, 'x'.repeat(201)]) failsOn({ model: m }, 'overrides.model');
    failsOn({ reasoning: { effort: 'extreme' } }, 'overrides.reasoning.effort');
    failsOn({ reasoning: { max_tokens: 100 } }, 'overrides.reasoning.effort');
    failsOn({ reasoning: { effort: 'low', max_tokens: 0 } }, 'overrides.reasoning.max_tokens');
    failsOn({ reasoning: { effort: 'low', budget_tokens: 10 } }, 'overrides.reasoning.budget_tokens');
    failsOn({ reasoning: null }, 'overrides.reasoning');
  });

  it('names fields without a prefix for PATCH /sessions/:id', () => {
    failsOn({ top_p: 1 }, 'top_p', '');
    failsOn({ effort: 'low' }, 'effort', '');
    failsOn({ reasoning: { effort: 'x' } }, 'reasoning.effort', '');
    failsOn([], 'body', '');
    assert.deepEqual(parseOverrides({ model: 'm' }, ''), { ok: true, value: { model: 'm' } });
  });
});

describe('resolveSettings', () => {
  const agent = {
    model: 'agent-model',
    temperature: 1,
    max_tokens: 4096,
    reasoning: { effort: 'low' as const, max_tokens: 2000 },
  };

  it('takes each field from the highest layer that sets it: per call > session > agent', () => {
    assert.deepEqual(resolveSettings({ temperature: 0.2 }, { model: 'session-model', temperature: 0.5 }, agent), {
      model: 'session-model',
      temperature: 0.2,
      max_tokens: 4096,
      reasoning: { effort: 'low', max_tokens: 2000 },
    });
    assert.deepEqual(resolveSettings(undefined, null, agent), agent);
    assert.deepEqual(resolveSettings({ model: 'call' }, { model: 'session' }, agent).model, 'call');
  });

  it('keeps a zero temperature rather than falling through', () => {
    assert.equal(resolveSettings({ temperature: 0 }, { temperature: 1 }, agent).temperature, 0);
  });

  it('takes reasoning whole, never merging its keys across layers', () => {
    assert.deepEqual(resolveSettings({ reasoning: { effort: 'high' } }, undefined, agent).reasoning, {
      effort: 'high',
    });
  });

  it('leaves out what no layer sets', () => {
    assert.deepEqual(resolveSettings({ model: 'm' }, undefined, undefined), { model: 'm' });
    assert.deepEqual(Object.keys(resolveSettings(null, null, {})), []);
  });
});
