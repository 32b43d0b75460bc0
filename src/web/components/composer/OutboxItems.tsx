import { messages } from '../../stores/thread.js';
import { VoiceNote } from '../voice/VoiceNote.js';
import { discard, outbox, retry, sending, uploadProgress, type OutboxEntry } from '../../stores/outbox.js';

/**
 * The thread's unsent messages, after its stored ones: "Waiting to send" until the daemon stores one, then the
 * daemon's message (matched by client id) takes its place — never both. A refused one says why, with Retry/Discard.
 */
export function OutboxItems({ agent }: { agent: string }) {
  const stored = new Set(messages.value.filter((m) => m.client_id).map((m) => m.client_id));
  const mine = outbox.value.filter((e) => e.agent === agent && !stored.has(e.client_id));
  return (
    <>
      {mine.map((e) => (
        <OutboxItem key={e.client_id} e={e} />
      ))}
    </>
  );
}

function OutboxItem({ e }: { e: OutboxEntry }) {
  const busy = sending.value === e.client_id;
  const progress = uploadProgress.value;
  return (
    <li class="msg msg-in msg-outbox" data-client-id={e.client_id} data-state={e.refused ? 'refused' : 'waiting'}>
      <div class="bubble">
        {e.text && <div class="msg-text">{e.text}</div>}
        {e.files.map((f) => {
          const p = progress.get(`${e.client_id}/${f.key}`);
          // A note recorded here plays from its own bytes while it waits and uploads.
          if (f.duration_ms !== undefined)
            return (
              <div key={f.key} class="att-voice">
                <div class="msg-label">Voice</div>
                <VoiceNote source={f.blob} durationMs={f.duration_ms} {...(f.id ? { id: f.id } : {})} />
                {!f.id && busy && p !== undefined && <progress max={100} value={Math.round(p * 100)} />}
              </div>
            );
          return (
            <div key={f.key} class="att att-pending">
              📎 {f.name}
              {!f.id && busy && p !== undefined && <progress max={100} value={Math.round(p * 100)} />}
            </div>
          );
        })}
      </div>
      {e.refused ? (
        <div class="msg-meta msg-refused">
          <p class="msg-why">
            <span class="state-failed">Not sent</span>: {e.refused}
          </p>
          <div class="msg-actions">
            <button type="button" onClick={() => void retry(e.client_id)}>
              Retry
            </button>
            <button type="button" onClick={() => void discard(e.client_id)}>
              Discard
            </button>
          </div>
        </div>
      ) : (
        <div class="msg-meta">
          <span class="msg-state state-waiting">{busy ? 'Sending…' : 'Waiting to send'}</span>
        </div>
      )}
    </li>
  );
}
