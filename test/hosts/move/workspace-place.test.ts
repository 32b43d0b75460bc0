// Where a moved agent's own workspace lands on the target (issue 32): under the target user's home when it was under
// the source user's, else at the same absolute path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { localWorkspace, portableWorkspace } from '../../../src/hosts/move/side/workspace-place.js';

describe('the workspace place', () => {
  it('a path under the source home travels as ~/…, and lands under the target home', () => {
    assert.equal(portableWorkspace('/home/ann/code/app', '/home/ann'), '~/code/app');
    assert.equal(localWorkspace('~/code/app', '/Users/bob'), '/Users/bob/code/app');
  });

  it('a path elsewhere, or the home itself, travels as it is', () => {
    assert.equal(portableWorkspace('/srv/app', '/home/ann'), '/srv/app');
    assert.equal(portableWorkspace('/home/annex/app', '/home/ann'), '/home/annex/app');
    assert.equal(portableWorkspace('/home/ann', '/home/ann'), '/home/ann');
    assert.equal(localWorkspace('/srv/app', '/Users/bob'), '/srv/app');
  });

  it('a relative or unnormalised path is refused', () => {
    assert.throws(() => localWorkspace('code/app', '/Users/bob'), /not an absolute path/);
    assert.throws(() => localWorkspace('/srv/../etc', '/Users/bob'), /not an absolute path/);
  });
});
