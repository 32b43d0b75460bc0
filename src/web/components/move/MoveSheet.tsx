import { useEffect, useRef, useState } from 'preact/hooks';
import type { MoveOperation } from '../../../wire/move.js';
import { HostName } from '../../../wire/host.js';
import { parseAddress } from '../../../wire/agent-address.js';
import { ApiError } from '../../api/client.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { recheckCallerAfter } from '../../stores/caller.js';
import { hostDownReason, hostOf, hosts } from '../../stores/hosts.js';
import { machineName, hostNames } from '../../stores/move-view.js';
import { moves, trackMove } from '../../stores/moves.js';
import { MoveProgress, useArrival } from './MoveProgress.js';
import { refusalWords } from './refusal-words.js';
import './move.css';

/** A machine the sheet offers: its `to`, its label, and why it cannot be chosen now (null: it can). */
interface Target {
  to: string;
  label: string;
  down: string | null;
}

/**
 * "Move to…" / "Copy to…" (issue 32): the machine, an optional name there, and after an agent_busy refusal a
 * checkbox to move anyway. The hub's refusal in words (a name taken focuses the name); after its 202, the operation's
 * progress, which the thread's banner shows too.
 */
export function MoveSheet({
  agent,
  kind,
  onClose,
}: {
  agent: string;
  kind: MoveOperation['kind'];
  onClose: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  const nameField = useRef<HTMLInputElement>(null);
  const [hub, setHub] = useState<string | null>(null);
  const [to, setTo] = useState<string | null>(null);
  const [as, setAs] = useState('');
  const [nameNeeded, setNameNeeded] = useState(false);
  const [force, setForce] = useState(false);
  const [forceOffered, setForceOffered] = useState(false);
  const [refusal, setRefusal] = useState<{ code?: string | undefined; message: string } | null>(null);
  const [sending, setSending] = useState(false);
  const [started, setStarted] = useState<string | null>(null);
  useEffect(() => {
    dialog.current?.showModal();
    // The hub's own machine name, in lower case, is what a move to it names as `to` (the runner's MoveFacts).
    api.host().then(
      (h) => setHub(h.name.toLowerCase()),
      (err) => void onUnpaired(err),
    );
  }, []);

  const own = hostOf(agent);
  const names = hostNames.value;
  const targets: Target[] = [
    // The hub is offered under its own name, unless that name is no host name or is a followed host's too.
    ...(hub !== null && HostName.safeParse(hub).success && !names.includes(hub) && !(kind === 'move' && own === null)
      ? [{ to: hub, label: 'This machine', down: null }]
      : []),
    ...(hosts.value ?? [])
      .filter((h) => !(kind === 'move' && h.name === own))
      .map((h) => ({ to: h.name, label: h.name, down: hostDownReason(h) })),
  ];
  const op = started === null ? undefined : moves.value.get(agent);
  useArrival(op);
  const verb = kind === 'move' ? 'Move' : 'Copy';

  const submit = async (e: Event) => {
    e.preventDefault();
    if (to === null) return;
    setSending(true);
    setRefusal(null);
    try {
      const body = { to, ...(as ? { as } : {}), ...(kind === 'move' && force ? { force: true } : {}) };
      const op = await api.moveAgent(agent, kind, body);
      trackMove(op);
      setStarted(op.id);
    } catch (err) {
      if (await onUnpaired(err)) return;
      recheckCallerAfter(err);
      const r = err instanceof ApiError ? { code: err.code, message: err.message } : { message: String(err) };
      setRefusal(r);
      if (r.code === 'agent_busy' && kind === 'move') setForceOffered(true);
      if (r.code === 'name_taken') {
        setNameNeeded(true);
        nameField.current?.focus();
      }
    } finally {
      setSending(false);
    }
  };

  const said = refusal && refusalWords(refusal, { agent, machine: to === null ? '' : machineName(to, names) });
  return (
    <dialog ref={dialog} class="move-sheet" aria-labelledby="move-title" data-move-sheet={kind} onClose={onClose}>
      <h2 id="move-title">
        {verb} {agent} to…
      </h2>
      {op ? (
        <MoveProgress op={op} />
      ) : (
        <form class="control-groups" onSubmit={(e) => void submit(e)}>
          <fieldset>
            <legend>Machine</legend>
            {targets.length === 0 && <p class="muted">No other machine to {kind} it to.</p>}
            {targets.map((t) => (
              <label key={t.to} class="choice move-target" data-target={t.to} data-down={t.down ? '' : undefined}>
                <input
                  type="radio"
                  name="move-to"
                  value={t.to}
                  checked={to === t.to}
                  disabled={!!t.down}
                  onChange={() => setTo(t.to)}
                />
                <span>
                  {t.label}
                  <span class="move-target-status">{t.down ?? 'online'}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <label for="move-as">Name there {nameNeeded ? '' : '(optional)'}</label>
          <input
            id="move-as"
            ref={nameField}
            value={as}
            required={nameNeeded}
            placeholder={parseAddress(agent)?.name ?? agent}
            aria-invalid={refusal?.code === 'name_taken'}
            onInput={(e) => setAs((e.target as HTMLInputElement).value)}
          />
          {forceOffered && (
            <label class="choice">
              <input
                type="checkbox"
                checked={force}
                onChange={(e) => setForce((e.target as HTMLInputElement).checked)}
              />
              Move even though a turn is running
            </label>
          )}
          {said && (
            <div class="form-error" role="alert" data-refusal={refusal?.code ?? ''}>
              <p>{said.words}</p>
              {said.detail && <p class="move-detail">{said.detail}</p>}
            </div>
          )}
          <div class="control-row">
            <button type="button" onClick={() => dialog.current?.close()}>
              Cancel
            </button>
            <button type="submit" class="primary" disabled={to === null || sending}>
              {sending ? `${kind === 'move' ? 'Moving' : 'Copying'}…` : verb}
            </button>
          </div>
        </form>
      )}
      {op && (
        <form method="dialog" class="control-row">
          <button type="submit">Close</button>
        </form>
      )}
    </dialog>
  );
}
