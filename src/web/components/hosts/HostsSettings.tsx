import { useEffect, useState } from 'preact/hooks';
import type { HostEntry } from '../../../wire/host.js';
import { api } from '../../stores/auth.js';
import { dropHost } from '../../stores/hosts.js';
import { useAction } from '../controls/useAction.js';
import { HostBadge } from './HostBadge.js';
import './hosts.css';

/**
 * The machines this daemon follows as the owner's hub (issue 31), for the owner's phone (a device with the fleet
 * scope, as the device list): pair one from the join link `leo host invite` printed on it, remove one after a
 * confirmation. Names, addresses and errors are the hosts' text: shown as text only.
 */
export function HostsSettings() {
  const { busy, error, run } = useAction();
  const [list, setList] = useState<HostEntry[] | null>(null);
  const [name, setName] = useState('');
  const [link, setLink] = useState('');
  const [said, setSaid] = useState('');
  const [removing, setRemoving] = useState<string | null>(null);
  // useAction patches any answer with a name and a status into the fleet as an agent: a host is none, so each job
  // keeps its answer here and hands back nothing.
  const load = () => run('load', () => api.hosts().then((h) => void setList(h)));
  useEffect(() => void load(), []);
  const add = () =>
    run('add', async () => {
      setSaid('');
      const h = await api.addHost({ name: name.trim(), link: link.trim() });
      setSaid(`Paired ${h.name}: ${h.status}${h.version ? `, Leo ${h.version}` : ''}.`);
      setName('');
      setLink('');
      setList((l) => [...(l ?? []).filter((x) => x.name !== h.name), h].sort((a, b) => a.name.localeCompare(b.name)));
    });
  const remove = (host: string) =>
    run('remove', async () => {
      const r = await api.removeHost(host);
      setRemoving(null);
      dropHost(host);
      setList((l) => (l ?? []).filter((x) => x.name !== host));
      setSaid(
        r.revoked
          ? `Removed ${r.name}; it revoked this hub's access.`
          : `Removed ${r.name}${r.note ? `: ${r.note}` : '; it could not be reached to revoke this hub’s access.'}`,
      );
    });
  return (
    <fieldset class="hosts-settings" data-hosts-settings>
      <legend>Machines</legend>
      <p class="hint">
        Follow another machine's Leo from here: on that machine run <code>leo host invite hub</code> and paste the link
        it prints. Its agents then show in this fleet.
      </p>
      <form
        class="control-form"
        onSubmit={(e) => {
          e.preventDefault();
          void add();
        }}
      >
        <label for="host-name">Name for it here</label>
        <input
          id="host-name"
          value={name}
          placeholder="box"
          autocomplete="off"
          autocapitalize="off"
          onInput={(e) => setName((e.currentTarget as HTMLInputElement).value)}
        />
        <label for="host-link">Join link</label>
        <input
          id="host-link"
          value={link}
          placeholder="https://box.example.ts.net/#join=…"
          autocomplete="off"
          onInput={(e) => setLink((e.currentTarget as HTMLInputElement).value)}
        />
        <div class="control-row">
          <button type="submit" class="primary" disabled={!!busy || !name.trim() || !link.trim()}>
            {busy === 'add' ? 'Pairing…' : 'Pair machine'}
          </button>
        </div>
      </form>
      {error && (
        <p class="form-error" role="alert" data-hosts-error>
          {error}
        </p>
      )}
      <p class="hint" role="status" aria-live="polite" data-hosts-said>
        {said}
      </p>
      <ul class="host-list">
        {(list ?? []).map((h) => (
          <li key={h.name} data-host={h.name}>
            <strong>{h.name}</strong>
            <HostBadge host={h} />
            <span class="host-url">{h.url}</span>
            {removing === h.name ? (
              <span role="alertdialog" aria-label={`Remove ${h.name}?`} class="control-row">
                <span>Stop following {h.name}? Its agents keep running there.</span>
                <button type="button" onClick={() => setRemoving(null)}>
                  Keep it
                </button>
                <button type="button" class="danger" disabled={!!busy} onClick={() => void remove(h.name)}>
                  Remove {h.name}
                </button>
              </span>
            ) : (
              <button type="button" class="danger" disabled={!!busy} onClick={() => setRemoving(h.name)}>
                Remove…
              </button>
            )}
          </li>
        ))}
      </ul>
      {list?.length === 0 && <p class="hint">No machines yet.</p>}
    </fieldset>
  );
}
