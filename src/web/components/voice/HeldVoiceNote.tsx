import { useState } from 'preact/hooks';
import type { Message } from '../../../wire/message.js';
import { api, onUnpaired } from '../../stores/auth.js';

/**
 * A voice note the daemon held because whisper heard no words in it (failure no_speech): not sent, with Retry
 * (transcribe again) and Send anyway (deliver the audio alone). The thread's chat.updated brings what follows; a
 * refusal (another device already let it go: 409) is shown as the daemon said it.
 */
export function HeldVoiceNote({ m }: { m: Message }) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const release = async (action: 'retry' | 'send-anyway') => {
    setBusy(true);
    setError(null);
    try {
      await api.release(m.agent, m.id, action);
    } catch (err) {
      if (!(await onUnpaired(err))) setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="msg-failure" data-held="no_speech">
      <p class="msg-why">No words recognised — not sent.</p>
      <div class="msg-actions">
        <button type="button" disabled={busy} onClick={() => void release('retry')}>
          Retry
        </button>
        <button type="button" disabled={busy} onClick={() => void release('send-anyway')}>
          Send anyway
        </button>
      </div>
      {error && (
        <p class="msg-why" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
