import type { Agent } from '../../observe/schemas.js';
import { route, threadHref } from '../stores/route.js';
import { TurnErrorBadge, TurnErrorReason } from './TurnError.js';

const STATUS: Record<string, string> = {
  running: 'Running',
  starting: 'Starting',
  restoring: 'Restoring',
  stopped: 'Stopped',
};

/**
 * One agent. current_action.detail is untrusted pane text: it is rendered as a text node (Preact escapes it) and
 * never parsed; an unknown status reads as stopped, as the spec asks.
 */
export function AgentCard({ agent, unread }: { agent: Agent; unread: number }) {
  const status = STATUS[agent.status] ? agent.status : 'stopped';
  const dormant = status === 'stopped' && agent.wake_on_message ? 'Asleep · wakes on message' : null;
  const colour = agent.appearance?.color;
  const r = route.value;
  const open = r.screen === 'thread' && r.agent === agent.name;
  return (
    <li
      class={`agent agent-${status} activity-${agent.activity}`}
      data-agent={agent.name}
      data-status={agent.status}
      style={colour ? { '--agent-color': colour } : undefined}
    >
      <a
        class="agent-link"
        href={threadHref(agent.name)}
        aria-current={open ? 'page' : undefined}
        aria-label={`Open ${agent.display_name}'s thread`}
      />
      <span class="agent-avatar" aria-hidden="true">
        {agent.appearance?.emoji ?? agent.display_name.slice(0, 1).toUpperCase()}
      </span>
      <div class="agent-main">
        <div class="agent-line">
          <span class="agent-name">{agent.display_name}</span>
          {agent.name === 'assistant' && (
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
        <div class="agent-meta">
          <span class={`agent-status status-${status}`}>{dormant ?? STATUS[status]}</span>
          {status === 'running' && agent.activity !== 'unknown' && <span class="agent-activity">{agent.activity}</span>}
          <span class="agent-harness">{agent.harness}</span>
          <TurnErrorBadge error={agent.turn_error} />
        </div>
        {agent.current_action?.detail && <div class="agent-action">{agent.current_action.detail}</div>}
        {agent.stop_reason && <div class="agent-reason">{agent.stop_reason}</div>}
        <TurnErrorReason error={agent.turn_error} class="agent-reason" />
      </div>
    </li>
  );
}
