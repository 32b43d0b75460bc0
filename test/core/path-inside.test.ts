import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isBelow, isInside } from '../../src/core/path-inside.js';

describe('isInside(root, p)', () => {
  it('holds for the root itself and what lies under it, written any way', () => {
    assert.equal(isInside('/work', '/work'), true);
    assert.equal(isInside('/work/', '/work'), true);
    assert.equal(isInside('/work', '/work/a/b'), true);
    assert.equal(isInside('/work', '/work/a/../b'), true);
    assert.equal(isInside('/', '/etc'), true);
  });

  it('fails for a sibling that shares the name, a parent, and a way out through ..', () => {
    assert.equal(isInside('/work', '/work2'), false);
    assert.equal(isInside('/work', '/'), false);
    assert.equal(isInside('/work/a', '/work'), false);
    assert.equal(isInside('/work', '/work/../etc'), false);
    assert.equal(isInside('/work', '/work/..foo'), true, 'a name that starts with two dots is inside');
  });
});

describe('isBelow(root, p)', () => {
  it('holds under the root only, never for the root itself or a way out', () => {
    assert.equal(isBelow('/work', '/work/a'), true);
    assert.equal(isBelow('/work', '/work'), false);
    assert.equal(isBelow('/work/', '/work/./'), false);
    assert.equal(isBelow('/work', '/work2/a'), false);
    assert.equal(isBelow('/work', '/work/a/../../etc'), false);
  });
});
