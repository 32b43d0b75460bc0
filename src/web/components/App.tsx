import { useEffect, useState } from 'preact/hooks';
import { auth } from '../stores/auth.js';
import { startSync } from '../stores/sync.js';
import { Fleet } from './Fleet.js';
import { Inbox } from './Inbox.js';
import { Unpaired } from './Unpaired.js';

export function App() {
  const state = auth.value;
  const [inboxOpen, setInboxOpen] = useState(false);
  useEffect(() => (state === 'paired' ? startSync() : undefined), [state]);
  if (state === 'loading' || state === 'pairing')
    return (
      <div class="screen center">
        <p class="muted">{state === 'pairing' ? 'Pairing…' : 'Loading…'}</p>
      </div>
    );
  if (state === 'paired')
    return inboxOpen ? <Inbox onBack={() => setInboxOpen(false)} /> : <Fleet onInbox={() => setInboxOpen(true)} />;
  return <Unpaired />;
}
