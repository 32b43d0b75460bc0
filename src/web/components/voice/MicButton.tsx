import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { cancelRecording, finishRecording, recording, recordingFor, startRecording } from '../../stores/recorder.js';
import { IDLE, step, type Gesture, type GestureEvent } from './gesture.js';
import './voice.css';

const SLACK_PX = 12;

/** The gesture in progress (one microphone, one button pressed at a time); RecordingBar words its hint from it. */
export const gesture = signal<Gesture>(IDLE);

function act(agent: string, e: GestureEvent): void {
  const r = recording.peek();
  const busy = r.status === 'starting' || r.status === 'recording';
  // A recording that ended without the button (refused, too long, cancelled from the bar) leaves no gesture behind.
  const from = busy ? gesture.peek() : step(gesture.peek(), { type: 'reset' }).next;
  const { next, action } = step(from, e);
  gesture.value = next;
  if (action === 'start') void startRecording(agent);
  else if (action === 'send') void finishRecording();
  else if (action === 'cancel') cancelRecording();
}

/**
 * The composer's microphone: hold to talk (release sends, sliding off cancels) or tap to start and tap again to send;
 * Enter/Space on it toggles like a tap. Esc cancels, ahead of the shortcuts' Esc (which would leave the thread).
 */
export function MicButton({ agent }: { agent: string }) {
  const r = recordingFor(agent);
  const active = r.status === 'starting' || r.status === 'recording';

  useEffect(() => {
    if (!active) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      e.stopImmediatePropagation();
      act(agent, { type: 'cancel' });
    };
    window.addEventListener('keydown', onKey, true);
    return () => window.removeEventListener('keydown', onKey, true);
  }, [active, agent]);

  // Leaving the thread throws its recording away.
  useEffect(
    () => () => {
      const now = recording.peek();
      if (now.status !== 'idle' && now.agent === agent) cancelRecording();
    },
    [agent],
  );

  const toggled = active && gesture.value.kind === 'toggled';
  const label = toggled ? 'Stop and send voice note' : 'Record a voice note';
  return (
    <button
      type="button"
      class={`icon-button mic-button${active ? ' mic-live' : ''}`}
      aria-label={label}
      title={active ? label : 'Hold to talk, or tap to start and tap again to send'}
      aria-pressed={active}
      data-mic={active ? (toggled ? 'toggled' : 'holding') : 'idle'}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        // No focus move, no text selection; every move of this pointer comes here, wherever it goes (see below).
        e.preventDefault();
        e.currentTarget.setPointerCapture(e.pointerId);
        act(agent, { type: 'down', at: e.timeStamp });
      }}
      // Sliding off is judged by geometry, not pointerleave: a touch stays captured by the element it began on (and
      // Chrome does not let go of it), so it never "leaves". A little slack forgives a thumb that wobbles.
      onPointerMove={(e) => {
        if (gesture.peek().kind !== 'holding') return;
        const r = e.currentTarget.getBoundingClientRect();
        const out =
          e.clientX < r.left - SLACK_PX ||
          e.clientX > r.right + SLACK_PX ||
          e.clientY < r.top - SLACK_PX ||
          e.clientY > r.bottom + SLACK_PX;
        if (out) act(agent, { type: 'leave' });
      }}
      onPointerUp={(e) => act(agent, { type: 'up', at: e.timeStamp })}
      onPointerCancel={() => act(agent, { type: 'leave' })}
      onClick={(e) => {
        // A keyboard's Enter/Space (no pointer: detail 0) is a tap.
        if (e.detail !== 0) return;
        act(agent, { type: 'down', at: e.timeStamp });
        act(agent, { type: 'up', at: e.timeStamp });
      }}
      onContextMenu={(e) => e.preventDefault()}
    >
      <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
        {toggled ? (
          <rect x="7" y="7" width="10" height="10" rx="2" fill="currentColor" />
        ) : (
          <>
            <rect x="9" y="3" width="6" height="11" rx="3" fill="currentColor" />
            <path
              d="M5.5 11a6.5 6.5 0 0 0 13 0M12 17.5V21"
              fill="none"
              stroke="currentColor"
              stroke-width="1.8"
              stroke-linecap="round"
            />
          </>
        )}
      </svg>
    </button>
  );
}
