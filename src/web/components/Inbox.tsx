import { inbox } from '../stores/inbox.js';
import { ActionCard } from './cards/ActionCard.js';
import { ScreenBar } from './ScreenBar.js';

/** Everything waiting on the owner across agents, newest first, each answerable in place. */
export function Inbox() {
  const items = inbox.value;
  return (
    <section class="screen inbox-screen" data-screen="inbox">
      <ScreenBar title="Inbox" back="#/" backLabel="Back to the fleet" />
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
