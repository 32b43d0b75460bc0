import { useState } from 'preact/hooks';
import type { Message } from '../../../chat/threads/message.js';
import { useSubmit } from './useSubmit.js';

/** A permission prompt a hook is holding: allow, or deny with an optional reason the agent is told. */
export function PermissionCard({ m }: { m: Message }) {
  const { error, busy, answer } = useSubmit(m);
  const [reason, setReason] = useState('');
  return (
    <div class="card-form">
      <input
        type="text"
        aria-label="Reason for denying (optional)"
        placeholder="Reason for denying (optional)"
        value={reason}
        onInput={(e) => setReason(e.currentTarget.value)}
      />
      <div class="choices buttons">
        <button type="button" class="primary" disabled={busy} onClick={() => answer({ values: ['allow'] })}>
          Allow
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => answer({ values: ['deny'], text: reason })}>
          Deny
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
