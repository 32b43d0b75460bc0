import { useEffect, useState } from 'preact/hooks';
import type { MoveOperation } from '../../../wire/move.js';
import { ApiError } from '../../api/client.js';
import { humanBytes } from '../../render/bytes.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { arrivalAddress, hostNames, machineName, stepWords } from '../../stores/move-view.js';
import { arrivedHere, trackMove } from '../../stores/moves.js';
import { threadHref } from '../../stores/route.js';
import './move.css';

/** A move started on this page goes to the agent's new address once done (the sheet and the banner both watch). */
export function useArrival(op: MoveOperation | undefined): void {
  const names = hostNames.value;
  useEffect(() => {
    if (op && arrivedHere(op)) location.hash = threadHref(arrivalAddress(op.as, op.to, names));
  }, [op?.step]);
}

/**
 * Where a move or copy is, as its move_progress events say: the step, the bytes while shipping, the failure with
 * Retry once its undoing is done, and where the agent now is.
 */
export function MoveProgress({ op }: { op: MoveOperation }) {
  const names = hostNames.value;
  const machine = machineName(op.to, names);
  const there = arrivalAddress(op.as, op.to, names);
  const [retrying, setRetrying] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const retry = async () => {
    setRetrying(true);
    setError(null);
    try {
      trackMove(await api.retryMove(op.id));
    } catch (err) {
      if (!(await onUnpaired(err))) setError(err instanceof ApiError ? err.message : String(err));
    } finally {
      setRetrying(false);
    }
  };
  const { bytes_done, bytes_total } = op.progress;
  return (
    <div class="move-progress control-groups" data-move={op.id} data-step={op.step}>
      <p class="move-step" role="status">
        <strong>
          {op.kind === 'move' ? 'Moving' : 'Copying'} to {machine}
        </strong>{' '}
        · {stepWords(op, machine)}
      </p>
      {op.step === 'ship' && (
        <div class="move-bar">
          {bytes_total === null ? (
            <progress aria-label="Shipped so far" />
          ) : (
            <progress aria-label="Shipped so far" max={bytes_total} value={bytes_done} />
          )}
          <span class="move-bytes" data-move-bytes>
            {humanBytes(bytes_done)}
            {bytes_total === null ? '' : ` of ${humanBytes(bytes_total)}`}
          </span>
        </div>
      )}
      {op.failure && (
        <p class="form-error" data-move-failure>
          {op.failure.message}
        </p>
      )}
      {op.step === 'failed' &&
        (op.undo.length > 0 ? (
          <p class="muted" data-move-undoing>
            Putting things back…
          </p>
        ) : (
          <button type="button" class="primary" disabled={retrying} onClick={() => void retry()}>
            {retrying ? 'Retrying…' : 'Retry'}
          </button>
        ))}
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      {op.step === 'done' && (
        <a class="button-link" href={threadHref(there)} data-move-arrived>
          {op.kind === 'copy' ? `Open the copy, ${there}` : `Open ${there}`}
        </a>
      )}
    </div>
  );
}
