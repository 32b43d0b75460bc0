import { signal } from '@preact/signals';
import { enqueue } from './outbox.js';
import { extensionFor, noteName, pickFormat, type RecordingFormat } from './recording-format.js';

/**
 * The one voice recording in progress (a person has one microphone and one thumb): asking for the microphone,
 * recording, or why it could not. Finishing hands the note to the outbox as an upload with an empty text, so it is
 * durable and survives offline like any message; the daemon makes it a voice note from the audio's bytes.
 */
export type Recording =
  | { status: 'idle' }
  | { status: 'starting'; agent: string }
  | { status: 'recording'; agent: string; started: number }
  | { status: 'error'; agent: string; message: string };

export const recording = signal<Recording>({ status: 'idle' });
/** How long the recording in progress has run, updated a few times a second for the timer. */
export const elapsedMs = signal(0);

/** Longer notes are sent as they stand: a forgotten recording must not fill the disk or the upload limit. */
export const MAX_RECORDING_MS = 10 * 60_000;
const TICK_MS = 250;

interface Live {
  agent: string;
  stream: MediaStream;
  recorder: MediaRecorder;
  chunks: Blob[];
  format: RecordingFormat;
  started: number;
  ticker: ReturnType<typeof setInterval>;
}
let live: Live | null = null;
const IDLE: Recording = { status: 'idle' };

export const recordingFor = (agent: string): Recording => {
  const r = recording.value;
  return r.status !== 'idle' && r.agent === agent ? r : IDLE;
};

/** What a person should be told when the microphone cannot be opened, by the DOMException's name. */
export function microphoneProblem(err: unknown): string {
  const name = err instanceof Error || err instanceof DOMException ? err.name : '';
  switch (name) {
    case 'NotAllowedError':
    case 'SecurityError':
      return "Microphone access is blocked. Allow the microphone for this site in the browser's settings, then try again.";
    case 'NotFoundError':
    case 'OverconstrainedError':
      return 'No microphone was found. Connect one and try again.';
    case 'NotReadableError':
    case 'AbortError':
      return 'The microphone could not be opened: another app may be using it.';
    default:
      return `Recording could not start: ${err instanceof Error ? err.message : String(err)}`;
  }
}

function release(l: Live): void {
  clearInterval(l.ticker);
  // Stopping the tracks turns the browser's "recording" indicator off at once.
  for (const track of l.stream.getTracks()) track.stop();
}

export async function startRecording(agent: string): Promise<void> {
  const now = recording.value;
  if (now.status === 'starting' || now.status === 'recording') return;
  if (!navigator.mediaDevices?.getUserMedia || typeof MediaRecorder === 'undefined') {
    recording.value = {
      status: 'error',
      agent,
      message: isSecureContext
        ? 'This browser cannot record audio.'
        : 'Recording needs a secure connection: open Leo over HTTPS (see `leo remote`).',
    };
    return;
  }
  const asked: Recording = { status: 'starting', agent };
  recording.value = asked;
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  } catch (err) {
    if (recording.value === asked) recording.value = { status: 'error', agent, message: microphoneProblem(err) };
    return;
  }
  // Cancelled (or released) while the browser was still opening the microphone: nothing was recorded.
  if (recording.value !== asked) {
    for (const track of stream.getTracks()) track.stop();
    return;
  }
  const format = pickFormat((type) => MediaRecorder.isTypeSupported(type));
  const recorder = new MediaRecorder(stream, format.mimeType ? { mimeType: format.mimeType } : {});
  const chunks: Blob[] = [];
  recorder.ondataavailable = (e) => {
    if (e.data.size) chunks.push(e.data);
  };
  // No timeslice: one chunk at the end, so the file is one well-formed container.
  recorder.start();
  const started = Date.now();
  elapsedMs.value = 0;
  const ticker = setInterval(() => {
    elapsedMs.value = Date.now() - started;
    if (elapsedMs.value >= MAX_RECORDING_MS) void finishRecording();
  }, TICK_MS);
  live = { agent, stream, recorder, chunks, format, started, ticker };
  recording.value = { status: 'recording', agent, started };
}

/** Throws the recording away (Esc, Cancel, sliding off the button, leaving the thread); also clears an error. */
export function cancelRecording(): void {
  const l = live;
  live = null;
  recording.value = IDLE;
  if (!l) return;
  l.recorder.ondataavailable = null;
  l.recorder.stop();
  release(l);
}

/** Stops and sends. Released before the microphone even opened, there is nothing to send: it is a cancel. */
export async function finishRecording(): Promise<void> {
  const l = live;
  if (!l) return cancelRecording();
  live = null;
  const durationMs = Date.now() - l.started;
  recording.value = IDLE;
  const blob = await new Promise<Blob>((resolve) => {
    l.recorder.onstop = () => resolve(new Blob(l.chunks, { type: l.recorder.mimeType || l.format.mimeType }));
    l.recorder.stop();
  });
  release(l);
  const ext = extensionFor(blob.type, l.format.ext);
  await enqueue(l.agent, '', [
    {
      key: 'voice',
      name: noteName(new Date(l.started), ext),
      type: blob.type,
      size: blob.size,
      blob,
      duration_ms: durationMs,
    },
  ]);
}
