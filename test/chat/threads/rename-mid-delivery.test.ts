// An agent renamed while one of its messages is being typed (the rename moves the thread's rows, then the typing
// fails on the old tmux session): the failure's note goes into the thread under the new name, so the thread stays
// one thread. Found by agents/rename-activity-live in CI, where the note under the old name split the thread.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moveAgentRows } from '../../../src/store/agent-rows.js';
import { fakeChat } from '../../helpers/chat-service.js';

describe('an agent renamed while its message is being typed', () => {
  it('the failure and its note land in the renamed thread, and no thread is left under the old name', async (t) => {
    const { db, store, chat } = fakeChat(t, {
      deliver: async (conn) => {
        // The rename commits while the text is on its way: the rows move, the old session is gone.
        conn.transaction(() => moveAgentRows(conn, 'den', 'lair'))();
        throw new Error("tmux: can't find session: leo-den");
      },
    });

    const sent = chat.send('den', { text: 'hello den' });
    await chat.drain();

    const agents = db.prepare('SELECT DISTINCT agent FROM messages').all() as { agent: string }[];
    assert.deepEqual(
      agents.map((r) => r.agent),
      ['lair'],
      'every row of the thread, the note included, is under the new name',
    );
    const failed = store.get(sent.id);
    assert.equal(failed?.state, 'failed');
    assert.equal(failed?.agent, 'lair');
  });
});
