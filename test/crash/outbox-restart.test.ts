// A message a SIGKILL caught pending is typed after the restart (chat.db is the outbox, at most 10 minutes old), and
// the thread says so: a system note per message, naming it, when it was sent and when it was typed in.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatLocal } from '../../src/core/local-time.js';
import { until } from '../helpers/wait.js';
import { CrashHome } from './kit.js';

const NOTE =
  /^Leo restarted before your message “(.+)” reached den \(sent (.+)\); it was typed in after the restart, (?:at|on) (.+)\.$/;

describe('crash: SIGKILL with messages waiting in the outbox', () => {
  it('each one never started is typed once after the restart, and a note in the thread says so and when', async (t) =>
    CrashHome.use(async (h) => {
      await h.start();
      await h.spawnAgent('den', 'sink');

      // Sent the way a person does, one after another; the first is still being typed (a paste waits 250 ms to
      // settle) when the daemon dies, so the ones behind it wait in chat.db, pending and never started.
      const texts = ['first of three', 'second of three', 'third of three'];
      const ids: string[] = [];
      for (const text of texts) {
        const r = await h.op('POST', '/api/v1/chat/den/messages', { text });
        assert.equal(r.status, 201, r.text);
        ids.push(r.json.data.id);
      }
      await h.kill();
      const killedAt = Date.now();
      const waiting = h.readDb((db) =>
        (
          db
            .prepare(`SELECT id FROM messages WHERE state = 'pending' AND delivery_note IS NOT 'delivery started'`)
            .all() as { id: string }[]
        ).map((r) => r.id),
      );
      assert.ok(waiting.length >= 1, 'the kill left at least one message unsent and never started');
      t.diagnostic(`${waiting.length} of ${texts.length} messages waited in the outbox`);

      await h.start();
      const thread = await until(
        'every message to settle',
        async () => {
          const msgs = await h.thread('den');
          return ids.every((id) => msgs.find((m) => m.id === id)?.state !== 'pending') && msgs;
        },
        30_000,
      );
      const notes = thread.filter((m) => m.kind === 'system' && NOTE.test(m.text));
      assert.equal(notes.length, waiting.length, 'one note per message typed after the restart');
      const read = await h.linesReadShowing(
        'den',
        waiting.map((id) => thread.find((x) => x.id === id)!.text),
      );
      for (const id of waiting) {
        const m = thread.find((x) => x.id === id)!;
        assert.equal(m.state, 'delivered', `${m.text} is delivered after the restart`);
        assert.equal(read.filter((l) => l.includes(m.text)).length, 1, `${m.text} was typed into den once`);
        const note = notes.find((n) => NOTE.exec(n.text)![1] === m.text);
        assert.ok(note, `a note names “${m.text}”: ${JSON.stringify(notes.map((n) => n.text))}`);
        const [, , sent, typed] = NOTE.exec(note.text)!;
        assert.equal(sent, formatLocal(Date.parse(m.ts)));
        // Typed after the restart, at the time of the note (stored the same moment; formatLocal shows minutes).
        assert.ok(Date.parse(note.ts) >= killedAt, 'the note came after the restart');
        const at = Date.parse(note.ts);
        assert.ok(
          [at, at - 1000].some((ms) => formatLocal(ms).endsWith(typed!)),
          `typed at ${typed}, noted at ${note.ts}`,
        );
        assert.ok(note.id > m.id, 'the note follows the message in the thread');
      }
    }));
});
