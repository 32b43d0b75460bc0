import { hostOf } from '../../stores/hosts.js';
import { parseAddress } from '../../../wire/agent-address.js';

/**
 * An agent's name as the owner reads it: its display name (or bare name), and on a hub the machine it runs on as a
 * quiet suffix, "Den · box". Local agents read exactly as before.
 */
export function AgentLabel({ name, display }: { name: string; display?: string | undefined }) {
  const host = hostOf(name);
  const label = display ?? (host === null ? name : parseAddress(name)!.name);
  return (
    <>
      {label}
      {host !== null && <span class="host-suffix"> · {host}</span>}
    </>
  );
}
