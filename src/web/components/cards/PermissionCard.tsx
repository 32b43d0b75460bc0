import { useState } from 'preact/hooks';
import type { Message } from '../../../wire/message.js';
import { Countdown } from './Countdown.js';
import { allowWithheldReason } from './PermissionInput.js';
import { useSubmit } from './useSubmit.js';

/**
 * A permission prompt still answerable: allow, or deny with an optional reason the agent is told. While chat holds it
 * the card counts down to its deadline; after that (terminal_waiting) the answer goes to the agent's terminal dialog.
 * Allow waits until the person has opened all of the input it would approve (`whole`).
 */
export function PermissionCard({ m, whole }: { m: Message; whole: boolean }) {
  const { error, busy, answer } = useSubmit(m);
  const [reason, setReason] = useState('');
  const withheld = m.permission ? allowWithheldReason(m.permission, whole) : null;
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
      {withheld && <p class="hint allow-withheld">{withheld}</p>}
      <div class="choices buttons">
        {!withheld && (
          <button type="button" class="primary" disabled={busy} onClick={() => answer({ values: ['allow'] })}>
            Allow
          </button>
        )}
        {!withheld && m.state === 'open' && m.permission?.allow_session && (
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
