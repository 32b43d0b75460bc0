import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compileGlob, globMatches, globProblem } from '../../src/core/name-glob.js';

describe('appearance-rule name globs', () => {
  // What picomatch answered for these before it was replaced: the rules people write keep their meaning.
  const cases: [string, string, boolean][] = [
    ['leo-*', 'leo-home', true],
    ['leo-*', 'leo-', true],
    ['leo-*', 'home', false],
    ['*', 'anything', true],
    ['*-bot', 'review-bot', true],
    ['*-bot', 'review-bots', false],
    ['den', 'den', true],
    ['den', 'Den', false],
    ['den', 'dens', false],
    ['d?n', 'dan', true],
    ['d?n', 'dn', false],
    ['d??n', 'dawn', true],
    ['a*b*c', 'axxbyyc', true],
    ['a*b*c', 'axxbyy', false],
    ['a*b*c', 'abcbc', true],
    ['*a*', 'banana', true],
    ['*a', 'banana', true],
    ['*n', 'banana', false],
    ['w[0-9]', 'w7', true],
    ['w[0-9]', 'wx', false],
    ['w[!0-9]', 'wx', true],
    ['w[^0-9]', 'w7', false],
    ['[abc]*', 'bob', true],
    ['[abc]*', 'dan', false],
    ['w[-_]x', 'w_x', true],
    ['{fe,be}-*', 'be-api', true],
    ['{fe,be}-*', 'ops-api', false],
    ['x{a,{b,c}}y', 'xcy', true],
    ['x{a,{b,c}}y', 'xdy', false],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['w[0-9', 'w[0-9', true],
  ];
  for (const [pattern, name, expected] of cases) {
    it(`${pattern} ${expected ? 'matches' : 'does not match'} ${name}`, () => {
      assert.equal(globMatches(pattern, name), expected);
      assert.equal(compileGlob(pattern)(name), expected);
    });
  }

  it('a pattern built to make a backtracking matcher explode answers at once', () => {
    const name = 'a'.repeat(63);
    const started = performance.now();
    assert.equal(globMatches('*a*a*a*a*a*a*a*c', name), false);
    assert.equal(globMatches('*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c', name), false);
    assert.equal(globMatches('*a*a*a*a*a*a*a*a', name), true);
    const ms = performance.now() - started;
    console.log(`pathological globs against a 63-character name: ${ms.toFixed(2)} ms`);
    assert.ok(ms < 1000, `took ${ms} ms`);
  });

  it('refuses patterns whose alternatives multiply or whose braces do not pair', () => {
    assert.equal(globProblem('leo-*'), null);
    assert.match(globProblem('{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}') ?? '', /more than 64 alternatives/);
    assert.match(globProblem('{a,b') ?? '', /without its "}"/);
    assert.match(globProblem('a}') ?? '', /without its "{"/);
    assert.match(globProblem('*'.repeat(300)) ?? '', /longer than/);
    assert.equal(globMatches('{a,b', 'a'), false);
  });
});
