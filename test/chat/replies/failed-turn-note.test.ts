// A failed turn in the daemon (issue 27): Claude's StopFailure hook → the failure read from the transcript → one
// system note in the thread, the fleet's turn_error set (in /api/v1/state and by agent_turn_error), cleared when the
// agent's next turn starts. A Stop after it, a replayed hook and a restart's catch-up add nothing.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Message } from '../../../src/wire/message.js';
import type { BusEvent } from '../../../src/events/event.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';
import { claudeStopFailure, freshTranscriptLines, writeTranscript } from '../../helpers/transcripts.js';
import { until } from '../../helpers/wait.js';
import { MessagePage } from '../../../src/wire/message.js';
import { StateSnapshot } from '../../../src/wire/fleet.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;

describe('a failed turn: one note, the fleet’s error state, cleared by the next turn', () => {
  let t: TestDaemon;
  const hook = (event: string, payload: Record<string, unknown>) =>
    request(t.socket, 'POST', `/hooks/${event}`, { body: { agent: 'den', payload } });
  const messages = async () => (await t.get('/api/v1/chat/den/messages', MessagePage)).messages as Message[];
  const fleetError = async () =>
    (await t.get('/api/v1/state', StateSnapshot)).agents.find((a: { name: string }) => a.name === 'den')!.turn_error;
  const send = async (text: string) => {
    const id = (await t.op('POST', '/api/v1/chat/den/messages', { text })).json.data.id as string;
    await until('delivered', async () => (await messages()).find((m) => m.id === id)?.state === 'delivered', 5000, 50);
    return id;
  };

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
  });
  after(() => t.stop());

  it('StopFailure, Stop and a replay post one note; the fleet and the event carry the reason', async () => {
    const events: BusEvent[] = [];
    const sub = t.daemon.bus.subscribe({ deliver: (e) => void events.push(e) });
    try {
      const text = 'are you there?';
      const id = await send(text);
      const payload = claudeStopFailure(t.home, text);
      assert.equal((await hook('stop-failure', payload)).status, 200);
      const note = await until(
        'the failure note',
        async () => (await messages()).find((m) => m.kind === 'system' && m.text.startsWith('Could not answer')),
        5000,
        50,
      );
      assert.equal(
        note.text,
        'Could not answer: not logged in — check its environment or run /login\n\nNot logged in · Please run /login',
      );
      // The same turn's end again, in every form it can come: nothing more is posted for that message.
      await hook('stop-failure', payload);
      await hook('stop', { ...payload, hook_event_name: 'Stop' });
      await sleep(600);
      const after = await messages();
      assert.equal(after.filter((m) => m.text.startsWith('Could not answer')).length, 1);
      assert.equal(after.filter((m) => m.reply_to === id).length, 0, 'no reply posted for the failed message');
      assert.equal(after.find((m) => m.id === id)?.state, 'delivered', 'the message stays delivered');

      const reason = 'not logged in — check its environment or run /login';
      assert.equal((await fleetError())?.message, reason);
      const published = events.filter((e) => e.type === 'agent_turn_error');
      assert.equal(published.length, 1);
      assert.deepEqual((published[0]!.data as { turn_error: { message: string } }).turn_error.message, reason);
      assert.equal(published[0]!.audience, 'fleet');

      // The next turn starts: the error is over, and the app hears so.
      await hook('user-prompt-submit', { prompt: '[Leo Chat] again' });
      assert.equal(await fleetError(), null);
      assert.deepEqual(
        events.filter((e) => e.type === 'agent_turn_error').map((e) => (e.data as { turn_error: unknown }).turn_error),
        [published[0]!.data.turn_error, null],
      );
    } finally {
      sub.unsubscribe();
    }
  });

  it('an interrupted turn gets a short note, once', async () => {
    const text = 'long job please';
    await send(text);
    const lines = freshTranscriptLines('interrupted-then-same-text');
    const prompt = JSON.parse(lines.find((l) => l.includes('"type":"user"'))!).message.content as string;
    const swapped = freshTranscriptLines('interrupted-then-same-text', { swap: [prompt, `[Leo Chat] ${text}`] });
    // Only the interrupted turn: the transcript up to the marker.
    const cut = swapped.slice(0, swapped.findIndex((l) => l.includes('Request interrupted by user')) + 1);
    const transcript = writeTranscript(path.join(t.home, 'interrupted.jsonl'), cut);
    await hook('stop', { transcript_path: transcript, hook_event_name: 'Stop' });
    await hook('stop', { transcript_path: transcript, hook_event_name: 'Stop' });
    await until(
      'the interrupted note',
      async () =>
        (await messages()).some((m) => m.kind === 'system' && m.text === 'Interrupted — no reply to this message'),
      5000,
      50,
    );
    await sleep(400);
    assert.equal((await messages()).filter((m) => m.text === 'Interrupted — no reply to this message').length, 1);
  });
});
