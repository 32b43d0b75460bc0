// chat.db as the durable outbox (issue 15 item 9): what a restart does with the messages it caught pending. The crash
// suite (test/crash/burst.test.ts) drives the same through SIGKILLed daemons; this pins each outcome and the hold.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { OUTBOX_MAX_AGE_MS } from '../../../src/chat/threads/chat-service.js';
import { typedAfterRestartNote } from '../../../src/chat/threads/restart-note.js';
import { formatLocal } from '../../../src/core/local-time.js';
import { fakeChat } from '../../helpers/chat-service.js';

const flush = () => new Promise((r) => setTimeout(r, 20));

describe('messages a restart caught pending', () => {
  it('the note on a message typed late quotes its first line, cut at 60 characters, or names a voice note', () => {
    const sentAt = Date.parse('2026-12-01T10:00:00Z');
    const msg = (text: string, kind = 'text') => ({ text, kind, agent: 'den', ts: '2026-12-01T10:00:00Z' }) as never;
    // Typed the next day (the daemon was down over midnight, in any zone): the typing time carries its date.
    const nextDay = sentAt + 24 * 3600_000;
    assert.equal(
      typedAfterRestartNote(msg(`${'x'.repeat(70)}\nsecond line`), nextDay),
      `Leo restarted before your message “${'x'.repeat(60)}…” reached den (sent ${formatLocal(sentAt)}); it was ` +
        `typed in after the restart, on ${formatLocal(nextDay)}.`,
    );
    assert.match(
      typedAfterRestartNote(msg('', 'voice'), sentAt + 60_000),
      /^Leo restarted before your voice note reached den \(sent .+\); it was typed in after the restart, at \d\d:\d\d \S+\.$/,
    );
  });

  it('one never started and recent is delivered after the restart, once the agents are restored, ahead of newer sends', async (t) => {
    const d = fakeChat(t);
    const old = d.pending('sent 11 minutes before the restart');
    d.clock.advance(OUTBOX_MAX_AGE_MS + 60_000 - 5 * 60_000);
    const first = d.pending('first, 5 minutes before');
    const second = d.pending('second, 5 minutes before');
    const typing = d.pending('being typed at the kill');
    d.store.markDeliveryStarted(typing.id);
    d.clock.advance(5 * 60_000);

    d.chat.recoverLeftovers();
    const meanwhile = d.chat.send('den', { text: 'sent while the agents were being restored' });
    await flush();
    assert.deepEqual(d.typed, [], 'nothing is typed before the agents are restored');
    assert.deepEqual(d.asked, [], 'nor is any agent looked at or started: a live one would look stopped');

    d.chat.agentsRestored();
    await d.chat.drain();
    assert.deepEqual(d.typed, [
      '[Leo Chat] first, 5 minutes before',
      '[Leo Chat] second, 5 minutes before',
      '[Leo Chat] sent while the agents were being restored',
    ]);
    assert.deepEqual(
      [first, second, meanwhile].map((m) => d.store.get(m.id)!.state),
      ['delivered', 'delivered', 'delivered'],
    );

    assert.equal(d.store.get(old.id)!.state, 'failed');
    assert.equal(d.store.get(typing.id)!.state, 'failed');
    const notes = d.store
      .page('den', { limit: 50 })
      .messages.filter((m) => m.kind === 'system')
      .map((m) => m.text);
    // Each leftover typed after the restart says so, and when; the message sent meanwhile was never held back.
    const typedAt = d.clock.now();
    const late = (m: { text: string; ts: string }) =>
      `Leo restarted before your message “${m.text}” reached den (sent ${formatLocal(Date.parse(m.ts))}); it was ` +
      `typed in after the restart, at ${formatLocal(typedAt).split(' ').slice(4).join(' ')}.`;
    assert.deepEqual(notes, [
      'Leo restarted before your message was delivered, over 10 minutes after you sent it; please send it again if ' +
        'it still applies.',
      'Leo restarted while typing your message into den; it may have arrived, so check before resending.',
      late(first),
      late(second),
    ]);
  });
});
