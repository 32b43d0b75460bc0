import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { AgentRecord } from '../../src/agents/agent-record.js';
import { AgentStore } from '../../src/agents/agent-store.js';
import { AttachmentStore } from '../../src/chat/attachments/attachments.js';
import { ChatStore } from '../../src/chat/threads/chat-store.js';
import { ManualClock } from '../../src/core/clock.js';
import { AGENT_NAME_COLUMNS, moveAgentRows } from '../../src/store/agent-rows.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { Readable } from 'node:stream';
import { agentRecord } from '../helpers/agent-record.js';

const rec = (name: string): AgentRecord => agentRecord({ name, template: 't' });

describe('a rename moves every row keyed by the agent, atomically', () => {
  let dir: string;
  let db: Database;
  let agents: AgentStore;
  let chat: ChatStore;
  let files: AttachmentStore;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-rows-'));
    db = openDatabase(path.join(dir, 'chat.db'));
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    agents = new AgentStore(db);
    chat = new ChatStore(db, clock);
    files = new AttachmentStore(db, clock, path.join(dir, 'attachments'));
    agents.insert(rec('den'));
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every column of the schema that holds an agent name is listed', () => {
    const tables = db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`)
      .pluck()
      .all() as string[];
    const keyed = tables.flatMap((t) =>
      (db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(t) as string[])
        .filter((c) => /^agent(_name)?$/.test(c))
        .map((c) => `${t}.${c}`),
    );
    assert.deepEqual(keyed.sort(), AGENT_NAME_COLUMNS.map(([t, c]) => `${t}.${c}`).sort());
  });

  it('the thread and its files follow; a failure to move the files undoes all of it', async () => {
    const up = await files.saveStream('den', 'a.txt', 'text/plain', Readable.from([Buffer.from('A')]), 100);
    chat.insert({
      agent: 'den',
      direction: 'in',
      kind: 'text',
      text: 'hi',
      state: 'delivered',
      attachmentIds: [up.id],
    });
    agents.onRename((from, to) => {
      moveAgentRows(db, from, to);
      files.moveAgent(from, to);
    });
    // The files cannot move (a plain file holds the new folder's name): the rows and the record stay too.
    const blocker = path.join(dir, 'attachments', 'lair');
    fs.writeFileSync(blocker, '');
    assert.throws(() => agents.rename('den', 'lair'), /ENOTDIR/);
    assert.ok(agents.get('den'), 'the record stayed');
    assert.equal(chat.page('den', { limit: 10 }).messages.length, 1, 'the thread stayed');
    assert.equal(files.fileOf('den', up.id)?.ref.available, true, 'its row points at its file');

    fs.rmSync(blocker);
    agents.rename('den', 'lair');
    assert.equal(agents.get('den'), null);
    assert.deepEqual(
      chat.page('lair', { limit: 10 }).messages.map((m) => m.text),
      ['hi'],
    );
    assert.equal(chat.page('den', { limit: 10 }).messages.length, 0);
    const moved = files.fileOf('lair', up.id);
    assert.equal(moved?.ref.available, true);
    assert.equal(fs.readFileSync(moved!.path, 'utf8'), 'A');
    assert.equal(fs.existsSync(path.join(dir, 'attachments', 'den')), false);
  });

  it("a removed agent's leftovers under the new name merge; its read marker gives way", async () => {
    const old = await files.saveStream('lair', 'old.txt', undefined, Readable.from([Buffer.from('O')]), 100);
    chat.markRead('lair', 'OLD');
    const mine = await files.saveStream('den', 'new.txt', undefined, Readable.from([Buffer.from('N')]), 100);
    chat.markRead('den', 'MINE');
    agents.onRename((from, to) => {
      moveAgentRows(db, from, to);
      files.moveAgent(from, to);
    });
    agents.rename('den', 'lair');
    for (const id of [old.id, mine.id]) assert.equal(files.fileOf('lair', id)?.ref.available, true, id);
    assert.deepEqual(db.prepare('SELECT agent, last_read_id FROM read_markers').all(), [
      { agent: 'lair', last_read_id: 'MINE' },
    ]);
  });
});
