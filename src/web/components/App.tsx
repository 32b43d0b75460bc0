import { useEffect } from 'preact/hooks';
import { auth } from '../stores/auth.js';
import { startSync } from '../stores/sync.js';
import { startLastKnown } from '../stores/last-known.js';
import { startOutbox } from '../stores/outbox.js';
import { startAnswers } from '../stores/answers.js';
import { startUploads } from '../stores/uploads.js';
import { route } from '../stores/route.js';
import { Fleet } from './Fleet.js';
import { ThreadView } from './thread/ThreadView.js';
import { Inbox } from './Inbox.js';
import { Unpaired } from './Unpaired.js';
import { UpdatePrompt } from './UpdatePrompt.js';
import { ShortcutHelp } from './ShortcutHelp.js';
import { bindShortcuts } from '../keys/bind-shortcuts.js';
import { Suspense, lazy } from 'preact/compat';

// The task, review, settings, new-agent and agent-controls screens load on first visit: the fleet and threads never
// pay for them (the first load stays under 80 KB gzip; the service worker keeps them for offline use).
const SpawnForm = lazy(() => import('./controls/SpawnForm.js').then((m) => ({ default: m.SpawnForm })));
const AgentControls = lazy(() => import('./controls/AgentControls.js').then((m) => ({ default: m.AgentControls })));
const TasksScreen = lazy(() => import('./tasks/TasksScreen.js').then((m) => ({ default: m.TasksScreen })));
const TaskDetail = lazy(() => import('./tasks/TaskDetail.js').then((m) => ({ default: m.TaskDetail })));
const ChangesView = lazy(() => import('./changes/ChangesView.js').then((m) => ({ default: m.ChangesView })));
const Settings = lazy(() => import('./Settings.js').then((m) => ({ default: m.Settings })));

export function App() {
  const state = auth.value;
  useEffect(() => {
    if (state !== 'paired') return;
    const stops = [startLastKnown(), startSync(), startOutbox(), startAnswers(), startUploads()];
    return () => stops.forEach((stop) => stop());
  }, [state]);
  useEffect(() => (state === 'paired' ? bindShortcuts() : undefined), [state]);
  if (state === 'loading' || state === 'pairing')
    return (
      <div class="screen center">
        <p class="muted">{state === 'pairing' ? 'Pairing…' : 'Loading…'}</p>
      </div>
    );
  if (state !== 'paired') return <Unpaired />;
  const r = route.value;
  // Phone: one screen at a time. Desktop: the fleet on the left, the thread or the inbox on the right (fleet.css).
  return (
    <div class={`layout layout-${r.screen}`}>
      <Fleet />
      {r.screen === 'thread' && <ThreadView key={r.agent} agent={r.agent} message={r.message} />}
      {r.screen === 'inbox' && <Inbox />}
      <Suspense fallback={<p class="muted screen center">Loading…</p>}>
        {r.screen === 'new' && <SpawnForm key={r.name} name={r.name} />}
        {r.screen === 'agent' && <AgentControls key={r.agent} agent={r.agent} />}
        {r.screen === 'tasks' && <TasksScreen />}
        {r.screen === 'task' && <TaskDetail key={r.task} task={r.task} run={r.run} />}
        {r.screen === 'changes' && <ChangesView key={r.agent} agent={r.agent} file={r.file} />}
        {r.screen === 'settings' && <Settings />}
      </Suspense>
      <ShortcutHelp />
      <UpdatePrompt />
    </div>
  );
}
