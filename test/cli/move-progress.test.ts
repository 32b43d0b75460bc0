// The lines `leo agent move|copy` prints as its operation goes (issue 32), pure: the step, the bytes while shipping,
// why it failed and what is still being undone, and when it is settled.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { progressLine, settled } from '../../src/cli/move-progress.js';
import { nextMove, startMove } from '../../src/hosts/move/operation/move-machine.js';

const NOW = '2026-12-05T12:00:00Z';
const started = startMove({
  id: '01M',
  kind: 'move',
  agent: 'den@box',
  to: 'cloud',
  as: 'den',
  force: false,
  now: NOW,
});

describe('the move progress line', () => {
  it('names the step, then the shipped bytes of the total', () => {
    assert.equal(progressLine(started), 'move den@box → den@cloud: parking the agent');
    const shipping = nextMove(
      nextMove(started, { type: 'step_done' }, NOW),
      { type: 'shipped', bytes_done: 3 * 1024 * 1024, bytes_total: 12 * 1024 * 1024 },
      NOW,
    );
    assert.equal(progressLine(shipping), 'move den@box → den@cloud: shipping 3.0 MiB of 12.0 MiB (25%)');
    assert.equal(settled(shipping), false);
  });

  it('says why it failed and what is still undone; settled once the undo is done', () => {
    const failed = nextMove(started, { type: 'fault', fault: 'link_cut_source', message: 'no answer' }, NOW);
    assert.equal(
      progressLine(failed),
      'move den@box → den@cloud: failed at park (link_cut_source): no answer; undoing: resume_source',
    );
    assert.equal(settled(failed), false);
    const undone = nextMove(failed, { type: 'undone', undo: 'resume_source' }, NOW);
    assert.equal(progressLine(undone), 'move den@box → den@cloud: failed at park (link_cut_source): no answer');
    assert.equal(settled(undone), true);
  });
});
