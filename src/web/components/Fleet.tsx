import { fleetRows, loaded, unread, type FleetRow } from '../stores/fleet.js';
import { fleetGroups, THIS_MACHINE } from '../stores/fleet-groups.js';
import { hosts } from '../stores/hosts.js';
import { HostBadge } from './hosts/HostBadge.js';
import { HostFilter } from './hosts/HostFilter.js';
import { openCount, waitingOnOwner } from '../stores/inbox.js';
import { AgentCard } from './AgentCard.js';
import { ConnectionBadge, OfflineNote } from './ConnectionBadge.js';
import { INBOX_HREF, SETTINGS_HREF, TASKS_HREF, newAgentHref, route } from '../stores/route.js';
import { helpOpen } from '../keys/bind-shortcuts.js';
import { HttpWarning } from './HttpWarning.js';
import { mayRunFleet } from '../stores/caller.js';
import './fleet.css';

export function Fleet() {
  const rows = fleetRows.value;
  return (
    <div class="screen fleet-screen">
      <header class="bar">
        <h1>Fleet</h1>
        {mayRunFleet.value && (
          <a class="new-link" href={newAgentHref()} aria-label="New agent" title="New agent">
            +
          </a>
        )}
        <a
          class="inbox-link"
          href={INBOX_HREF}
          aria-label={`Inbox, ${openCount.value} waiting`}
          aria-current={route.value.screen === 'inbox' ? 'page' : undefined}
        >
          Inbox{openCount.value > 0 && <span class="badge">{openCount.value}</span>}
        </a>
        <a
          class="tasks-link"
          href={TASKS_HREF}
          aria-current={route.value.screen === 'tasks' || route.value.screen === 'task' ? 'page' : undefined}
        >
          Tasks
        </a>
        <a
          class="settings-link"
          href={SETTINGS_HREF}
          aria-label="Notifications and settings"
          title="Notifications and settings"
          aria-current={route.value.screen === 'settings' ? 'page' : undefined}
        >
          🔔
        </a>
        <button
          type="button"
          class="help-link"
          onClick={() => (helpOpen.value = true)}
          aria-label="Keyboard shortcuts"
          title="Keyboard shortcuts (?)"
        >
          ?
        </button>
        <ConnectionBadge />
      </header>
      <OfflineNote />
      <main>
        <HttpWarning />
        {loaded.value && rows.length === 0 && (
          <div class="empty fleet-empty">
            <p>No agents yet.</p>
            {mayRunFleet.value && (
              <a class="button-link" href={newAgentHref()}>
                <span aria-hidden="true">+</span> New agent
              </a>
            )}
          </div>
        )}
        {hosts.value ? (
          <>
            <HostFilter />
            {fleetGroups.value.map((g) => (
              <section key={g.host?.name ?? THIS_MACHINE} class="host-group" data-host-group={g.host?.name ?? ''}>
                <h2 class="host-head">
                  <span class="host-name">{g.host?.name ?? 'This machine'}</span>
                  {g.host && <HostBadge host={g.host} />}
                </h2>
                <AgentList rows={g.rows} label={`Agents on ${g.host?.name ?? 'this machine'}`} />
              </section>
            ))}
          </>
        ) : (
          <AgentList rows={rows} label="Agents" />
        )}
      </main>
    </div>
  );
}

function AgentList({ rows, label }: { rows: FleetRow[]; label: string }) {
  return (
    <ul class="fleet" aria-label={label}>
      {rows.map((row) => (
        <AgentCard
          key={row.name}
          row={row}
          unread={unread.value.get(row.name) ?? 0}
          needsYou={waitingOnOwner.value.has(row.name)}
        />
      ))}
    </ul>
  );
}
