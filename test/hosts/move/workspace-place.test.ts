// Where a moved agent's own workspace lands on the target (issue 32): under the target user's home when it was under
// the source user's, else at the same absolute path.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePlace, localWorkspace, portableWorkspace } from '../../../src/hosts/move/side/workspace-place.js';

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

  it('a filled place gives way to one beside it, named for the agent, else numbered; nothing is reused', () => {
    const taken = new Set(['/w/ivy', '/w/ivy-ivy2', '/w/ivy-2']);
    const free = (p: string) => !taken.has(p);
    assert.equal(freePlace('/w/den', 'den', free), '/w/den');
    assert.equal(freePlace('/w/ivy', 'ivy9', free), '/w/ivy-ivy9');
    assert.equal(freePlace('/w/ivy', 'ivy2', free), '/w/ivy-3');
    assert.equal(freePlace('/w/ivy', 'ivy', free), '/w/ivy-3');
    assert.throws(() => freePlace('/w/ivy', 'ivy', () => false), /no free place/);
  });
});
