import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormerNames } from '../../src/agents/former-names.js';

describe('FormerNames: the names running harnesses still call themselves by', () => {
  it('follows a live rename, and a second one, back to the agent as it is named now', () => {
    const f = new FormerNames();
    f.renamedLive('a', 'b');
    f.renamedLive('b', 'c');
    assert.deepEqual(
      ['a', 'b', 'c', 'x'].map((n) => f.resolve(n)),
      ['c', 'c', 'c', 'x'],
    );
  });

  it('forgets them once the agent is launched again or ends', () => {
    const f = new FormerNames();
    f.renamedLive('a', 'b');
    f.renamedLive('p', 'q');
    f.ended('b');
    assert.deepEqual(
      ['a', 'p'].map((n) => f.resolve(n)),
      ['a', 'q'],
    );
  });

  it('a name taken again (a new agent, or renamed back) is its own', () => {
    const f = new FormerNames();
    f.renamedLive('a', 'b');
    f.taken('a');
    assert.equal(f.resolve('a'), 'a');
    f.renamedLive('c', 'd');
    f.renamedLive('d', 'c');
    assert.deepEqual(
      ['c', 'd'].map((n) => f.resolve(n)),
      ['c', 'c'],
    );
  });
});
