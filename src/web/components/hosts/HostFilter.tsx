import { hostFilter, THIS_MACHINE } from '../../stores/fleet-groups.js';
import { hosts } from '../../stores/hosts.js';
import './hosts.css';

/** On a hub: which machine the fleet shows, all of them or one. */
export function HostFilter() {
  const value = hostFilter.value;
  return (
    <label class="host-filter">
      <span>Show</span>
      <select
        data-host-filter
        value={value === null ? '*' : value}
        onChange={(e) => {
          const v = (e.currentTarget as HTMLSelectElement).value;
          hostFilter.value = v === '*' ? null : v;
        }}
      >
        <option value="*">All machines</option>
        <option value={THIS_MACHINE}>This machine</option>
        {(hosts.value ?? []).map((h) => (
          <option key={h.name} value={h.name}>
            {h.name}
          </option>
        ))}
      </select>
    </label>
  );
}
