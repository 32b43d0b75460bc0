import { inbox } from '../stores/inbox.js';
import { ActionCard } from './cards/ActionCard.js';
import { ConnectionBadge } from './ConnectionBadge.js';

/** Everything waiting on the owner across agents, newest first, each answerable in place. */
export function Inbox({ onBack }: { onBack: () => void }) {
  const items = inbox.value;
  return (
    <div class="screen">
      <header class="bar">
        <button type="button" class="back" onClick={onBack} aria-label="Back to the fleet">
          ‹ Fleet
        </button>
        <h1>Inbox</h1>
        <ConnectionBadge />
      </header>
      <main>
        {items.length === 0 && <p class="empty">Nothing is waiting on you.</p>}
        <div class="cards" aria-live="polite">
          {items.map((m) => (
            <ActionCard key={m.id} m={m} showAgent />
          ))}
        </div>
      </main>
    </div>
  );
}
