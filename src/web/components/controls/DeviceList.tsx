import { useEffect, useState } from 'preact/hooks';
import type { TokenRecord } from '../../../wire/tokens.js';
import { api } from '../../stores/auth.js';
import { caller } from '../../stores/caller.js';
import { useAction } from './useAction.js';
import './controls.css';

/**
 * The paired devices, for the owner's phone (a device with the fleet scope): which may run the fleet, each a switch
 * that grants or takes back the scope at once. This device's own switch is locked — turning it off here would leave
 * no way back from this screen; `leo device fleet <name> off` does it. Pairing and revoking stay on the command line.
 */
export function DeviceList() {
  const { busy, error, run } = useAction();
  const [devices, setDevices] = useState<TokenRecord[] | null>(null);
  useEffect(() => void run('load', () => api.devices().then(setDevices)), []);
  const me = caller.value?.id;
  const put = (id: string, d: TokenRecord) => setDevices((list) => list?.map((x) => (x.id === id ? d : x)) ?? null);
  // The switch moves at once; the daemon's answer settles it, and a refusal puts it back.
  const toggle = (d: TokenRecord, fleet: boolean) => {
    put(d.id, { ...d, fleet });
    void run(d.id, () => api.setDeviceScope(d.id, { fleet })).then((updated) => put(d.id, updated ?? d));
  };
  return (
    <fieldset class="device-list">
      <legend>Devices</legend>
      <p class="hint">
        A device that may run the fleet starts, stops, renames and removes agents, switches their template and
        environments, and runs tasks. Every paired device reads and chats.
      </p>
      {error && (
        <p class="form-error" role="alert">
          {error}
        </p>
      )}
      <ul>
        {(devices ?? []).map((d) => (
          <li key={d.id} data-device={d.name}>
            <label class="choice">
              <input
                type="checkbox"
                checked={d.fleet}
                disabled={!!busy || d.id === me}
                onChange={(e) => toggle(d, (e.currentTarget as HTMLInputElement).checked)}
              />
              <span>
                <span class="device-name">{d.name}</span>
                {d.id === me && <span class="muted"> · this device</span>}
                <small>
                  {d.fleet ? 'May run the fleet' : 'Reads and chats only'} · last used{' '}
                  {d.last_used_at ? new Date(d.last_used_at).toLocaleString() : 'never'}
                </small>
              </span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}
