import { useEffect } from 'preact/hooks';
import { loadMarkdown, markdown } from '../../render/markdown-loader.js';
import { announcement } from '../../stores/announce.js';
import { agents, loaded } from '../../stores/fleet.js';
import { messages, openAgent, openThread, threadError } from '../../stores/thread.js';
import { ConnectionBadge, OfflineNote } from '../ConnectionBadge.js';
import { MessageList } from './MessageList.js';
import { LazyTerminal } from '../terminal/LazyTerminal.js';
import { terminalShown } from '../../stores/terminal.js';
import { agentControlsHref, newAgentHref } from '../../stores/route.js';
import { Composer } from '../composer/Composer.js';
import { OutboxItems } from '../composer/OutboxItems.js';
import { outbox } from '../../stores/outbox.js';
import { watchPresence } from '../../stores/presence.js';
import { TurnErrorReason } from '../TurnError.js';
import { mayRunFleet } from '../../stores/caller.js';
import { NeedsInputReason } from '../NeedsInput.js';
import { unreachable } from '../../stores/hosts.js';
import { AgentLabel } from '../hosts/AgentLabel.js';
import { moves } from '../../stores/moves.js';
import { MovedNote } from '../move/MovedNote.js';
import { Suspense, lazy } from 'preact/compat';
import './thread.css';

// Only a thread whose agent is being moved or copied loads the banner (issue 32).
const MoveBanner = lazy(() => import('../move/MoveBanner.js').then((m) => ({ default: m.MoveBanner })));

/**
 * One agent's thread: its header, the virtualized message list (MessageList) opened at the newest message or at
 * `message` (`#/t/<agent>/m/<id>`), and a visually hidden live region announcing the agent's new messages.
 */
export function ThreadView({ agent, message }: { agent: string; message?: string }) {
  useEffect(() => {
    void openThread(agent, message);
  }, [agent, message]);
  useEffect(() => watchPresence(agent), [agent]);
  // Only if no other thread opened meanwhile: a quick switch can run this cleanup after the next thread's open.
  useEffect(() => () => void (openAgent.peek() === agent && openThread(null)), [agent]);

  const shown = messages.value;
  // The markdown renderer loads with the first agent message a thread shows (the fleet never needs it).
  useEffect(() => {
    if (!markdown.peek() && shown.some((m) => m.direction === 'out')) void loadMarkdown();
  }, [shown]);

  const a = agents.value.get(agent);
  // A thread can outlive its agent or never have one (a task's cards to an owner never spawned): it can be read, but
  // nothing can be typed to it, so it gets no composer, terminal or controls.
  const agentless = loaded.value && !a;
  const ready = openAgent.value === agent;
  const down = unreachable(agent);
  return (
    <section class="thread" data-screen="thread" data-thread={agent}>
      <header class="bar">
        <a class="back" href="#/" aria-label="Back to the fleet">
          ‹
        </a>
        <h1>
          <AgentLabel name={agent} display={a?.display_name} />
        </h1>
        {!agentless && (
          <>
            <button
              type="button"
              class="term-toggle"
              aria-pressed={terminalShown.value}
              disabled={!!down}
              title={down ?? undefined}
              onClick={() => (terminalShown.value = !terminalShown.value)}
            >
              Terminal
            </button>
            <a class="manage-link" href={agentControlsHref(agent)} aria-label={`Manage ${agent}`} title="Manage">
              ⋯
            </a>
          </>
        )}
        <ConnectionBadge />
      </header>
      <OfflineNote />
      {down && (
        <p class="host-down" role="status" data-host-down>
          {down}: what you send waits here and goes when it is back.
        </p>
      )}
      {moves.value.has(agent) && (
        <Suspense fallback={null}>
          <MoveBanner agent={agent} />
        </Suspense>
      )}
      <TurnErrorReason error={a?.turn_error} class="thread-turn-error" badge />
      <NeedsInputReason alert={a?.needs_input} class="thread-needs-input" />
      {terminalShown.value && !agentless && !down && <LazyTerminal agent={agent} />}
      {threadError.value ? (
        <p class="empty error">{threadError.value}</p>
      ) : ready && shown.length === 0 && !outbox.value.some((e) => e.agent === agent) ? (
        <p class="empty">No messages yet.</p>
      ) : (
        <MessageList agent={agent} />
      )}
      <div class="sr-only" aria-live="polite" data-live>
        {announcement.value}
      </div>
      <ol class="outbox-list" aria-label="Waiting to send">
        <OutboxItems agent={agent} />
      </ol>
      {a?.moved_to ? (
        <MovedNote agent={a} />
      ) : agentless ? (
        <p class="no-agent" data-no-agent>
          <span>
            No agent named {agent}: task cards land here.
            {mayRunFleet.value ? ` Spawn an agent named ${agent} to talk to it.` : ''}
          </span>
          {mayRunFleet.value && (
            <a class="button-link" href={newAgentHref(agent)}>
              Spawn {agent}
            </a>
          )}
        </p>
      ) : (
        <Composer agent={agent} />
      )}
    </section>
  );
}
