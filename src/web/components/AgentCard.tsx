import { PINNED_AGENT } from '../../wire/message.js';
import type { FleetRow } from '../stores/fleet.js';
import { route, threadHref } from '../stores/route.js';
import { TurnErrorBadge, TurnErrorReason } from './TurnError.js';
import { NeedsInputReason } from './NeedsInput.js';
import { showBidiControls } from '../../wire/visible-text.js';
import { unreachable } from '../stores/hosts.js';
import { hostNames, movedAway } from '../stores/move-view.js';
import { changeSummaryText } from './change-summary-format.js';

const STATUS: Record<string, string> = {
  running: 'Running',
  starting: 'Starting',
  restoring: 'Restoring',
  stopped: 'Stopped',
};

/**
 * One agent, or a thread with no agent (its row says so). current_action.detail is untrusted pane text: it is
 * rendered as a text node (Preact escapes it) and never parsed; an unknown status reads as stopped, as the spec asks.
 * `needsYou` (a prompt, ask or questions card open) outranks the pane's working/idle: the agent waits on the owner, as
 * it does when its terminal holds it (needs_input).
 */
export function AgentCard({
  row: { name, agent },
  unread,
  needsYou,
}: {
  row: FleetRow;
  unread: number;
  needsYou: boolean;
}) {
  const status = !agent ? 'none' : STATUS[agent.status] ? agent.status : 'stopped';
  const moved = agent ? movedAway(agent, hostNames.value) : null;
  const dormant = moved
    ? `Moved to ${moved.machine}`
    : status === 'stopped' && agent?.wake_on_message
      ? 'Asleep · wakes on message'
      : null;
  const colour = agent?.appearance?.color;
  const label = agent?.display_name ?? name;
  const r = route.value;
  const open = r.screen === 'thread' && r.agent === name;
  const waiting = needsYou || Boolean(agent?.needs_input);
  const activity = waiting ? 'needs-you' : (agent?.activity ?? 'unknown');
  // An agent of a host the hub cannot reach: its last known state, greyed, with why.
  const down = unreachable(name);
  const changes = moved ? null : changeSummaryText(agent?.changes);
  return (
    <li
      class={`agent agent-${status} activity-${activity}${down ? ' agent-unreachable' : ''}`}
      data-unreachable={down ? '' : undefined}
      data-agent={name}
      data-status={agent?.status ?? 'none'}
      style={colour ? { '--agent-color': colour } : undefined}
    >
      <a
        class="agent-link"
        href={threadHref(name)}
        aria-current={open ? 'page' : undefined}
        aria-label={`Open ${label}'s thread`}
      />
      <span class="agent-avatar" aria-hidden="true">
        {agent?.appearance?.emoji ?? label.slice(0, 1).toUpperCase()}
      </span>
      <div class="agent-main">
        <div class="agent-line">
          <span class="agent-name">{label}</span>
          {name === PINNED_AGENT && (
            <span class="agent-pin" title="Pinned">
              Pinned
            </span>
          )}
          {/* The thread on screen is being read: a count refetched between its messages and their read marker is stale. */}
          {unread > 0 && !open && (
            <span class="agent-unread" aria-label={`${unread} unread`} data-unread={unread}>
              {unread}
            </span>
          )}
        </div>
        {agent ? (
          <div class="agent-meta">
            <span class={`agent-status status-${status}`}>{dormant ?? STATUS[status]}</span>
            {waiting ? (
              <span class="agent-activity">needs you</span>
            ) : (
              status === 'running' &&
              agent.activity !== 'unknown' && <span class="agent-activity">{agent.activity}</span>
            )}
            <span class="agent-harness">{agent.harness}</span>
            <TurnErrorBadge error={agent.turn_error} />
          </div>
        ) : (
          <div class="agent-meta">
            <span class="agent-status status-none">No agent · messages only</span>
          </div>
        )}
        {agent?.current_action?.detail && (
          <div class="agent-action">{showBidiControls(agent.current_action.detail)}</div>
        )}
        {changes && (
          <div class="agent-changes" data-changes={changes.long}>
            <span class="sr-only">{changes.long}</span>
            <span class="changes-long" aria-hidden="true">
              {changes.long}
            </span>
            <span class="changes-short" aria-hidden="true">
              {changes.short}
            </span>
          </div>
        )}
        {down && <div class="agent-host-down">{down} · last known state</div>}
        {agent?.stop_reason && <div class="agent-reason">{agent.stop_reason}</div>}
        <TurnErrorReason error={agent?.turn_error} class="agent-reason" />
        <NeedsInputReason alert={agent?.needs_input} class="agent-needs-input" />
      </div>
    </li>
  );
}
