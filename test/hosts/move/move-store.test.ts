// The hub's moves table (issue 32): an operation saved after each transition is found again, whole, by a hub that
// restarted (a new process opening the same chat.db), and resumed from where its row says.
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { actionOf, nextMove, startMove } from '../../../src/hosts/move/operation/move-machine.js';
import { MoveStore } from '../../../src/hosts/move/operation/move-store.js';
import { openDatabase } from '../../../src/store/database.js';
import { tempDir } from '../../helpers/temp-home.js';

const NOW = '2026-12-05T11:00:00Z';

describe('the moves table', () => {
  it('keeps each operation across a restart; settled ones are not resumed', () => {
    const file = path.join(tempDir('leo-moves-'), 'chat.db');
    const db = openDatabase(file);
    const moves = new MoveStore(db);
    const base = { kind: 'move', to: 'cloud', force: false, now: NOW } as const;
    let den = startMove({ ...base, id: '01A', agent: 'den@box', as: 'den' });
    moves.save(den);
    den = nextMove(den, { type: 'step_done' }, NOW);
    den = nextMove(den, { type: 'shipped', bytes_done: 512, bytes_total: 2048 }, '2026-12-05T11:00:01Z');
    moves.save(den);
    const failed = nextMove(
      startMove({ ...base, id: '01B', agent: 'owl', as: 'owl' }),
      {
        type: 'fault',
        fault: 'refused',
        message: 'no',
      },
      NOW,
    );
    moves.save(failed);
    const undone = nextMove(failed, { type: 'undone', undo: 'resume_source' }, NOW);
    db.close();

    const reopened = openDatabase(file);
    const again = new MoveStore(reopened);
    assert.deepEqual(again.get('01A'), den, 'whole, as last saved');
    assert.equal(actionOf(again.get('01A')!), 'ship', 'resumed where it stopped, at its bytes');
    assert.deepEqual(
      again.unsettled().map((m) => m.id),
      ['01A', '01B'],
      'a failed move with an undo owed is unsettled',
    );
    assert.equal(again.unsettledOn('owl')?.id, '01B');
    again.save(undone);
    assert.deepEqual(
      again.unsettled().map((m) => m.id),
      ['01A'],
    );
    assert.equal(again.unsettledOn('owl'), null);
    assert.equal(again.get('nope'), null);
    reopened.close();
  });
});
