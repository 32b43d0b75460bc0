import type { AttachmentRef, Message } from '../../../wire/message.js';
import { api } from '../../stores/auth.js';
import { VoiceNote } from './VoiceNote.js';

/** Where a voice note is between sending and delivery, as the thread shows it. */
export type VoiceState = 'transcribing' | 'transcribed' | 'failed' | 'none';

export function voiceState(m: Message): VoiceState {
  if (m.transcript !== undefined) return 'transcribed';
  if (m.state === 'failed') return 'failed';
  return m.state === 'pending' ? 'transcribing' : 'none';
}

/** The recording itself: played here, not downloaded (a pruned one is left to AttachmentView). */
export const isPlayable = (a: AttachmentRef) => a.available && a.mime.startsWith('audio/');

/**
 * A voice note's body: its player, then "Transcribing…" until the daemon's `chat.updated change: transcript` brings
 * the words (which replace the message by id). A note in which whisper heard nothing says so rather than nothing.
 */
export function VoiceMessage({ m }: { m: Message }) {
  const state = voiceState(m);
  return (
    <div class="voice-body" data-voice-state={state}>
      {m.attachments.filter(isPlayable).map((a) => (
        <VoiceNote key={a.id} id={a.id} source={() => api.attachment(m.agent, a.id)} />
      ))}
      {state === 'transcribing' && <p class="voice-transcript voice-pending">Transcribing…</p>}
      {state === 'transcribed' &&
        (m.transcript!.trim() ? (
          <p class="voice-transcript msg-transcript" data-transcript>
            {m.transcript}
          </p>
        ) : (
          <p class="voice-transcript voice-pending" data-transcript>
            No words recognised
          </p>
        ))}
    </div>
  );
}
