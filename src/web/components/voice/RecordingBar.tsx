import { cancelRecording, elapsedMs, type Recording } from '../../stores/recorder.js';
import { clockTime } from '../../stores/recording-format.js';
import { gesture } from './MicButton.js';

/** In the composer's row while recording: Cancel, the red dot, the elapsed time and what to do next. */
export function RecordingBar({ r }: { r: Recording }) {
  const hint =
    r.status === 'starting'
      ? 'Opening the microphone…'
      : gesture.value.kind === 'holding'
        ? 'Release to send · slide off to cancel'
        : 'Tap ■ to send';
  return (
    <div class="recording-bar" data-recording={r.status} role="group" aria-label="Recording a voice note">
      <button
        type="button"
        class="icon-button"
        aria-label="Cancel recording"
        title="Cancel (Esc)"
        onClick={cancelRecording}
      >
        <svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true">
          <path d="M6 6l12 12M18 6 6 18" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
        </svg>
      </button>
      <span class="rec-dot" aria-hidden="true" />
      <span class="rec-time" data-rec-time>
        {clockTime(r.status === 'recording' ? elapsedMs.value : 0)}
      </span>
      <span class="rec-hint">{hint}</span>
    </div>
  );
}

/** Why the microphone could not record, until dismissed or the next try. */
export function RecordingProblem({ message }: { message: string }) {
  return (
    <div class="rec-problem" role="alert" data-recording="error">
      <p>{message}</p>
      <button type="button" class="staged-remove" aria-label="Dismiss" onClick={cancelRecording}>
        ×
      </button>
    </div>
  );
}
