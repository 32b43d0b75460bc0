import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { crashDelay, nextConsecutive } from '../../src/agents/crash-backoff.js';
import { agentEnv, displayName, resolveAgent, resolveAppearance } from '../../src/agents/resolve.js';
import { parseConfig } from '../../src/config/load.js';
import type { Config } from '../../src/config/schema.js';
import { agentRecord } from '../helpers/agent-record.js';

function config(yaml: string): Config {
  const r = parseConfig(yaml, { file: 'leo.yaml', home: '/home/u' });
  assert.ok(r.ok, !r.ok ? r.errors.join('\n') : '');
  return r.config;
}

const base = `
defaults:
  model: sonnet
  environments: [base]
environments:
  base: { A: "1", SHARED: base }
  work: { B: "2", SHARED: work }
templates:
  fable:
    harness: codex
    model: fable
    env: { T: t }
  plain: {}
  sh:
    harness: shell
    command: "echo hi"
    environments: [work]
`;

describe('the defaults → template → agent cascade', () => {
  it('takes the template over the defaults and the agent over both', () => {
    const c = config(base);
    const r = resolveAgent(agentRecord(), c, '/home/u/.leo');
    assert.equal(r.model, 'fable');
    assert.equal(r.harness, 'codex');
    assert.equal(r.workspace, '/home/u/.leo/agents/den');
    const plain = resolveAgent(agentRecord({ template: 'plain' }), c, '/l');
    assert.deepEqual([plain.model, plain.harness], ['sonnet', 'claude']);
    const own = resolveAgent(agentRecord({ model: 'opus', harness: 'claude', workspace: '/w' }), c, '/l');
    assert.deepEqual([own.model, own.harness, own.workspace], ['opus', 'claude', '/w']);
  });

  it('environments: the override, else the template, else the defaults — and says which', () => {
    const c = config(base);
    assert.deepEqual(resolveAgent(agentRecord(), c, '/l').environments, ['base']);
    assert.equal(resolveAgent(agentRecord(), c, '/l').environmentsSource, 'default');
    assert.deepEqual(resolveAgent(agentRecord({ template: 'sh' }), c, '/l').environments, ['work']);
    const o = resolveAgent(agentRecord({ environments: ['work', 'base'] }), c, '/l');
    assert.deepEqual([o.environments, o.environmentsSource], [['work', 'base'], 'override']);
  });

  it('environment_error names the environments config no longer defines', () => {
    const c = config(base);
    assert.equal(resolveAgent(agentRecord(), c, '/l').environmentError, null);
    assert.match(
      resolveAgent(agentRecord({ environments: ['gone', 'base'] }), c, '/l').environmentError ?? '',
      /"gone"/,
    );
  });

  it('a template missing from config is reported, not guessed', () => {
    const r = resolveAgent(agentRecord({ template: 'vanished' }), config(base), '/l');
    assert.match(r.templateError ?? '', /vanished/);
  });

  it('env: environments in order (later wins), then the template env, then the spawn env', () => {
    const c = config(base);
    const rec = agentRecord({ environments: ['base', 'work'], env: { X: 'spawn', T: 'spawn' } });
    assert.deepEqual(agentEnv(rec, resolveAgent(rec, c, '/l'), c), {
      A: '1',
      B: '2',
      SHARED: 'work',
      T: 'spawn',
      X: 'spawn',
    });
  });
});

describe('appearance resolution', () => {
  const rules = config(`
appearance_rules:
  - match: { name: "leo-*" }
    emoji: "🏠"
  - match: { harness: codex }
    color: teal
  - match: {}
    emoji: "🤖"
    color: grey
`).appearance_rules;

  it('first matching rule per field, with its index as the source', () => {
    assert.deepEqual(resolveAppearance(agentRecord({ name: 'leo-home' }), { template: 't', harness: 'codex' }, rules), {
      emoji: '🏠',
      emoji_source: 'rule:0',
      color: 'teal',
      color_source: 'rule:1',
    });
    assert.deepEqual(resolveAppearance(agentRecord(), { template: 't', harness: 'claude' }, rules), {
      emoji: '🤖',
      emoji_source: 'rule:2',
      color: 'grey',
      color_source: 'rule:2',
    });
  });

  it('a manual value beats every rule; nothing set means absent', () => {
    const a = resolveAppearance(agentRecord({ emoji: '🦊' }), { template: 't', harness: 'codex' }, rules);
    assert.deepEqual(a, { emoji: '🦊', emoji_source: 'manual', color: 'teal', color_source: 'rule:1' });
    assert.equal(resolveAppearance(agentRecord(), { template: 't', harness: 'claude' }, []), undefined);
  });

  it('a rule whose glob backtracks exponentially in a regex resolves at once (it runs on every snapshot)', () => {
    const hostile = config(`
appearance_rules:
  - match: { name: "*a*a*a*a*a*a*a*c" }
    emoji: "💥"
  - match: { name: "a*" }
    emoji: "🅰"
`).appearance_rules;
    const started = performance.now();
    const a = resolveAppearance(agentRecord({ name: 'a'.repeat(63) }), { template: 't', harness: 'shell' }, hostile);
    const ms = performance.now() - started;
    console.log(`appearance with a hostile glob, 63-character name: ${ms.toFixed(2)} ms`);
    assert.deepEqual(a, { emoji: '🅰', emoji_source: 'rule:1' });
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  it('display_name drops the internal leo- prefix only', () => {
    assert.equal(displayName('leo-home'), 'home');
    assert.equal(displayName('den'), 'den');
    assert.equal(displayName('leo-'), 'leo-');
  });
});

describe('crash backoff', () => {
  it('doubles from 1 s to a 60 s cap, and a stable run starts over', () => {
    assert.deepEqual([1, 2, 3, 4, 7, 8, 20].map(crashDelay), [1000, 2000, 4000, 8000, 60000, 60000, 60000]);
    assert.equal(nextConsecutive(5, 500), 6);
    assert.equal(nextConsecutive(5, 60_000), 1);
  });
});
