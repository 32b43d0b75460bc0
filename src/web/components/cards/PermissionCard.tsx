import { useState } from 'preact/hooks';
import type { Message } from '../../../chat/threads/message.js';
import { Countdown } from './Countdown.js';
import { useSubmit } from './useSubmit.js';

/**
 * A permission prompt still answerable: allow, or deny with an optional reason the agent is told. While chat holds it
 * the card counts down to its deadline; after that (terminal_waiting) the answer goes to the agent's terminal dialog.
 */
export function PermissionCard({ m }: { m: Message }) {
  const { error, busy, answer } = useSubmit(m);
  const [reason, setReason] = useState('');
  return (
    <div class="card-form">
      {m.state === 'open' && m.permission?.deadline && <Countdown deadline={m.permission.deadline} />}
      {/* A terminal's dialog takes a yes or a no, not a reason. */}
      {m.state === 'open' && (
        <input
          type="text"
          aria-label="Reason for denying (optional)"
          placeholder="Reason for denying (optional)"
          value={reason}
          onInput={(e) => setReason(e.currentTarget.value)}
        />
      )}
      <div class="choices buttons">
        <button type="button" class="primary" disabled={busy} onClick={() => answer({ values: ['allow'] })}>
          Allow
        </button>
        {m.state === 'open' && m.permission?.allow_session && (
          <button type="button" disabled={busy} onClick={() => answer({ values: ['allow_session'] })}>
            Allow for this session
          </button>
        )}
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
