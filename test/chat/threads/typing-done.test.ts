// What a move's park waits for before it stops an agent (ChatService.typingDone): the message being typed, and then
// a moment for the program to read the line its Enter ended. Found by crash/move: an echo-off sink stopped within
// milliseconds of the Enter had printed the line but not yet logged it, while the thread said delivered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fakeChat } from '../../helpers/chat-service.js';

const TYPING_MS = 300;
/** The grace is 500 ms; a lower bound with room for the timers' own slack. */
const GRACE_AT_LEAST_MS = 450;

describe('typingDone: what a park waits for', () => {
  it('the message being typed, then half a second after its Enter; an agent never typed into, nothing', async (t) => {
    const d = fakeChat(t, { typingMs: TYPING_MS });
    const sentAt = Date.now();
    const m = d.chat.send('den', { text: 'read me' });
    await sleep(20);
    const other = d.chat.typingDone('lair').then(() => 'lair');
    const den = d.chat.typingDone('den').then(() => 'den');
    assert.equal(await Promise.race([other, den]), 'lair', 'an agent never typed into has nothing to wait for');
    await den;
    assert.equal(d.store.get(m.id)?.state, 'delivered');
    assert.ok(Date.now() - sentAt >= TYPING_MS + GRACE_AT_LEAST_MS, `waited ${Date.now() - sentAt} ms`);
  });

  it('asked after the typing ended, still the rest of the half second', async (t) => {
    const d = fakeChat(t);
    d.chat.send('den', { text: 'read me' });
    await d.chat.drain();
    const asked = Date.now();
    await d.chat.typingDone('den');
    assert.ok(Date.now() - asked >= GRACE_AT_LEAST_MS - 50, `waited ${Date.now() - asked} ms`);
  });
});
