// The pure parts of Leo Web's voice notes (issue 17): the microphone button's gestures and the recorder's format,
// file name and clock. The browser test (voice.test.ts) drives the same code with a real microphone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOLD_MS, IDLE, step, type Gesture, type GestureEvent } from '../../src/web/components/voice/gesture.js';
import { clockTime, extensionFor, noteName, pickFormat } from '../../src/web/stores/recording-format.js';

/** Runs events from idle; returns the actions taken and where the gesture ended. */
function run(events: GestureEvent[]): { actions: string[]; last: Gesture } {
  let g: Gesture = IDLE;
  const actions: string[] = [];
  for (const e of events) {
    const { next, action } = step(g, e);
    g = next;
    if (action) actions.push(action);
  }
  return { actions, last: g };
}

describe("Leo Web voice: the microphone button's gestures", () => {
  it('hold to talk: a press held past HOLD_MS sends on release', () => {
    assert.deepEqual(
      run([
        { type: 'down', at: 0 },
        { type: 'up', at: HOLD_MS + 2000 },
      ]),
      {
        actions: ['start', 'send'],
        last: IDLE,
      },
    );
  });
  it('tap to toggle: a short press keeps recording, the next press sends, its release does nothing', () => {
    const { actions, last } = run([
      { type: 'down', at: 0 },
      { type: 'up', at: 120 },
      { type: 'leave' },
      { type: 'down', at: 3000 },
      { type: 'up', at: 3100 },
    ]);
    assert.deepEqual(actions, ['start', 'send'], 'leaving the button while toggled is no cancel');
    assert.deepEqual(last, IDLE);
  });
  it('sliding off while holding cancels; Esc cancels in either mode; the release after is ignored', () => {
    assert.deepEqual(run([{ type: 'down', at: 0 }, { type: 'leave' }, { type: 'up', at: 3000 }]).actions, [
      'start',
      'cancel',
    ]);
    assert.deepEqual(run([{ type: 'down', at: 0 }, { type: 'up', at: 50 }, { type: 'cancel' }]).actions, [
      'start',
      'cancel',
    ]);
    assert.deepEqual(run([{ type: 'cancel' }]).actions, [], 'nothing to cancel');
  });
  it('a recording that ended on its own resets the button: the next press starts again', () => {
    assert.deepEqual(
      run([{ type: 'down', at: 0 }, { type: 'up', at: 50 }, { type: 'reset' }, { type: 'down', at: 900 }]).actions,
      ['start', 'start'],
    );
  });
});

describe('Leo Web voice: what the recorder makes', () => {
  it('WebM/Opus where supported (Chromium), else MP4 named .m4a (Safari), else the default', () => {
    assert.deepEqual(
      pickFormat(() => true),
      { mimeType: 'audio/webm;codecs=opus', ext: 'webm' },
    );
    assert.deepEqual(
      pickFormat((t) => t === 'audio/mp4'),
      { mimeType: 'audio/mp4', ext: 'm4a' },
    );
    assert.deepEqual(
      pickFormat(() => false),
      { mimeType: '', ext: 'webm' },
    );
  });
  it('the extension follows what the recorder really produced', () => {
    assert.equal(extensionFor('audio/mp4;codecs=mp4a.40.2', 'webm'), 'm4a');
    assert.equal(extensionFor('audio/webm;codecs=opus', 'm4a'), 'webm');
    assert.equal(extensionFor('audio/ogg;codecs=opus', 'webm'), 'ogg');
    assert.equal(extensionFor('', 'm4a'), 'm4a');
  });
  it('names a note by its local start time; the clock shows whole seconds recorded', () => {
    assert.equal(noteName(new Date(2026, 11, 1, 9, 5, 7), 'm4a'), 'voice-note-20261201-090507.m4a');
    assert.equal(clockTime(999), '0:00');
    assert.equal(clockTime(61_500), '1:01');
    assert.equal(clockTime(725_000), '12:05');
  });
});
