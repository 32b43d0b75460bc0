import { signal } from '@preact/signals';

/**
 * Which screen the address names: `#/t/<agent>` is that agent's thread, `#/t/<agent>/m/<id>` the same thread opened at
 * one message (the inbox and push notifications link there), `#/inbox` the inbox, `#/new` a new agent (`#/new/<name>` with its name filled in), `#/a/<agent>`
 * an agent's controls, `#/tasks` the tasks, `#/tasks/<task>` one task, `#/tasks/<task>/runs/<id>` a run's log,
 * `#/c/<agent>` an agent's changed files, `#/c/<agent>/f/<path>` one file's diff, `#/settings` this device's push settings, anything else the fleet.
 */
export type Route =
  | { screen: 'fleet' }
  | { screen: 'inbox' }
  | { screen: 'new'; name?: string }
  | { screen: 'settings' }
  | { screen: 'agent'; agent: string }
  | { screen: 'thread'; agent: string; message?: string }
  | { screen: 'tasks' }
  | { screen: 'task'; task: string; run?: string }
  | { screen: 'changes'; agent: string; file?: string };

const dec = decodeURIComponent;

export function parseRoute(hash: string): Route {
  if (hash === '#/inbox') return { screen: 'inbox' };
  if (hash === '#/new') return { screen: 'new' };
  const spawn = /^#\/new\/([^/]+)$/.exec(hash);
  if (spawn) return { screen: 'new', name: dec(spawn[1]!) };
  if (hash === '#/tasks') return { screen: 'tasks' };
  const task = /^#\/tasks\/([^/]+)(?:\/runs\/([^/]+))?$/.exec(hash);
  if (task)
    return task[2]
      ? { screen: 'task', task: dec(task[1]!), run: dec(task[2]) }
      : { screen: 'task', task: dec(task[1]!) };
  // A file's path keeps its slashes, each segment encoded.
  const changes = /^#\/c\/([^/]+)(?:\/f\/(.+))?$/.exec(hash);
  if (changes)
    return changes[2]
      ? { screen: 'changes', agent: dec(changes[1]!), file: changes[2].split('/').map(dec).join('/') }
      : { screen: 'changes', agent: dec(changes[1]!) };
  if (hash === '#/settings') return { screen: 'settings' };
  const manage = /^#\/a\/([^/]+)$/.exec(hash);
  if (manage) return { screen: 'agent', agent: decodeURIComponent(manage[1]!) };
  const m = /^#\/t\/([^/]+)(?:\/m\/([^/]+))?$/.exec(hash);
  if (!m) return { screen: 'fleet' };
  const agent = decodeURIComponent(m[1]!);
  return m[2] ? { screen: 'thread', agent, message: decodeURIComponent(m[2]) } : { screen: 'thread', agent };
}

export const route = signal<Route>(parseRoute(location.hash));
// A hash change is a history entry, so the browser's back button returns to where the owner came from.
window.addEventListener('hashchange', () => (route.value = parseRoute(location.hash)));

export const threadHref = (agent: string, message?: string) =>
  `#/t/${encodeURIComponent(agent)}${message ? `/m/${encodeURIComponent(message)}` : ''}`;
export const INBOX_HREF = '#/inbox';
export const newAgentHref = (name?: string) => (name ? `#/new/${encodeURIComponent(name)}` : '#/new');
export const agentControlsHref = (agent: string) => `#/a/${encodeURIComponent(agent)}`;
export const TASKS_HREF = '#/tasks';
export const taskHref = (task: string, run?: string) =>
  `#/tasks/${encodeURIComponent(task)}${run ? `/runs/${encodeURIComponent(run)}` : ''}`;
export const changesHref = (agent: string, file?: string) =>
  `#/c/${encodeURIComponent(agent)}${file ? `/f/${file.split('/').map(encodeURIComponent).join('/')}` : ''}`;
export const SETTINGS_HREF = '#/settings';
