import { useEffect } from 'preact/hooks';
import type { PushMode, PushPrefs } from '../../wire/push.js';
import { fleet } from '../stores/fleet.js';
import {
  deliveries,
  describeDelivery,
  pushBusy,
  pushStatus,
  pushUnsupported,
  refreshPush,
  savePrefs,
  sendTestPush,
  subscribe,
  unsubscribe,
  webPushSubscriptions,
} from '../stores/push.js';
import { helpOpen } from '../keys/bind-shortcuts.js';
import { ScreenBar } from './ScreenBar.js';
import { mayRunFleet } from '../stores/caller.js';
import { DeviceList } from './controls/DeviceList.js';
import { HostsSettings } from './hosts/HostsSettings.js';
import './settings.css';

const MODES: { mode: PushMode; label: string }[] = [
  { mode: 'all', label: 'Every message' },
  { mode: 'asks_only', label: 'Only questions and permission prompts' },
  { mode: 'none', label: 'Nothing' },
];

/**
 * `#/settings`: this device's pushes — subscribe, what pushes (overall and per agent), a test push, the log — and, on
 * a device that may run the fleet, the paired devices and which of them may too.
 */
export function Settings() {
  useEffect(() => void refreshPush(), []);
  const unsupported = pushUnsupported();
  const mine = webPushSubscriptions();
  const subscribed = mine.length > 0;
  const prefs: PushPrefs = mine[0]?.prefs ?? { mode: 'all' };
  const busy = pushBusy.value;
  const setMode = (mode: PushMode) => void savePrefs({ ...prefs, mode });
  const setAgent = (agent: string, value: string) => {
    const agents = { ...prefs.agents };
    if (value === '') delete agents[agent];
    else agents[agent] = value as PushMode;
    void savePrefs({ ...prefs, agents });
  };
  return (
    <section class="screen controls settings" data-screen="settings">
      <ScreenBar title="Settings" back="#/" backLabel="Back to the fleet" />
      <main class="control-groups">
        <fieldset data-push={subscribed ? 'subscribed' : 'unsubscribed'}>
          <legend>This device</legend>
          {unsupported && <p class="hint">{unsupported}</p>}
          <p>{subscribed ? 'Pushes come to this device.' : 'This device gets no pushes.'}</p>
          <div class="control-row">
            {subscribed ? (
              <button type="button" disabled={busy} onClick={() => void unsubscribe()}>
                Unsubscribe
              </button>
            ) : (
              <button type="button" class="primary" disabled={busy || !!unsupported} onClick={() => void subscribe()}>
                Subscribe this device
              </button>
            )}
            <button type="button" disabled={busy || !subscribed} onClick={() => void sendTestPush()}>
              Send a test push
            </button>
          </div>
          <p class="hint" role="status" aria-live="polite" data-push-status>
            {pushStatus.value}
          </p>
        </fieldset>
        {subscribed && (
          <fieldset class="push-modes">
            <legend>What pushes</legend>
            {MODES.map(({ mode, label }) => (
              <label key={mode} class="choice">
                <input
                  type="radio"
                  name="push-mode"
                  value={mode}
                  checked={prefs.mode === mode}
                  disabled={busy}
                  onChange={() => setMode(mode)}
                />
                {label}
              </label>
            ))}
          </fieldset>
        )}
        {subscribed && fleet.value.length > 0 && (
          <fieldset class="push-agents">
            <legend>Per agent</legend>
            {fleet.value.map((a) => (
              <label key={a.name} class="push-agent">
                <span>{a.display_name}</span>
                <select
                  data-agent={a.name}
                  value={prefs.agents?.[a.name] ?? ''}
                  disabled={busy}
                  onChange={(e) => setAgent(a.name, (e.currentTarget as HTMLSelectElement).value)}
                >
                  <option value="">As above</option>
                  {MODES.map(({ mode, label }) => (
                    <option key={mode} value={mode}>
                      {label}
                    </option>
                  ))}
                </select>
              </label>
            ))}
          </fieldset>
        )}
        <fieldset class="delivery-log">
          <legend>Recent pushes to this device</legend>
          {deliveries.value.length === 0 ? (
            <p class="hint">None yet.</p>
          ) : (
            <ol>
              {deliveries.value.map((d, i) => (
                <li key={`${d.at}-${i}`} data-outcome={d.outcome}>
                  <time dateTime={d.at}>{new Date(d.at).toLocaleString()}</time>
                  <span class="delivery-title">{d.kind === 'test' ? 'Test push' : d.title}</span>
                  <span class="delivery-outcome">{describeDelivery(d)}</span>
                </li>
              ))}
            </ol>
          )}
          <div class="control-row">
            <button type="button" disabled={busy} onClick={() => void refreshPush()}>
              Refresh
            </button>
          </div>
        </fieldset>
        {mayRunFleet.value && <DeviceList />}
        {mayRunFleet.value && <HostsSettings />}
        <fieldset class="keyboard-only">
          <legend>Keyboard</legend>
          <div class="control-row">
            <button type="button" onClick={() => (helpOpen.value = true)}>
              Keyboard shortcuts
            </button>
          </div>
        </fieldset>
      </main>
    </section>
  );
}
