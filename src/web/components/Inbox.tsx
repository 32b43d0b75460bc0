import { inbox } from '../stores/inbox.js';
import { ActionCard } from './cards/ActionCard.js';
import { ConnectionBadge } from './ConnectionBadge.js';

/** Everything waiting on the owner across agents, newest first, each answerable in place. */
export function Inbox() {
  const items = inbox.value;
  return (
    <section class="screen inbox-screen" data-screen="inbox">
      <header class="bar">
        <a class="back" href="#/" aria-label="Back to the fleet">
          ‹
        </a>
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
    </section>
  );
}
