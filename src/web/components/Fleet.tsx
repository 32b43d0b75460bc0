import { fleet, loaded, unread } from '../stores/fleet.js';
import { openCount } from '../stores/inbox.js';
import { AgentCard } from './AgentCard.js';
import { ConnectionBadge } from './ConnectionBadge.js';

export function Fleet({ onInbox }: { onInbox: () => void }) {
  const agents = fleet.value;
  return (
    <div class="screen">
      <header class="bar">
        <h1>Fleet</h1>
        <button type="button" class="inbox-link" onClick={onInbox} aria-label={`Inbox, ${openCount.value} waiting`}>
          Inbox{openCount.value > 0 && <span class="badge">{openCount.value}</span>}
        </button>
        <ConnectionBadge />
      </header>
      <main>
        {loaded.value && agents.length === 0 && (
          <p class="empty">
            No agents yet. Spawn one with <code>leo agent spawn</code>.
          </p>
        )}
        <ul class="fleet" aria-label="Agents">
          {agents.map((a) => (
            <AgentCard key={a.name} agent={a} unread={unread.value.get(a.name) ?? 0} />
          ))}
        </ul>
      </main>
    </div>
  );
}
