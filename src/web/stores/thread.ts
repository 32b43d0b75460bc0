import { signal } from '@preact/signals';
import type { Message } from '../../chat/threads/message.js';
import type { FleetEvent } from '../api/client.js';
import { api, onUnpaired } from './auth.js';
import { setUnread } from './fleet.js';

const PAGE = 50;

/** The open thread: its agent, its messages oldest first, and the cursor for the page before them. */
export const openAgent = signal<string | null>(null);
export const messages = signal<readonly Message[]>([]);
export const older = signal<string | null>(null);
export const loadingOlder = signal(false);
export const threadError = signal<string | null>(null);

let generation = 0;

/** Inserts or replaces by id, keeping the order by id (ids sort in the order the daemon stored them). */
export function upsert(list: readonly Message[], m: Message): Message[] {
  const i = list.findIndex((x) => x.id === m.id);
  if (i >= 0) return list.map((x, j) => (j === i ? m : x));
  const next = [...list, m];
  return next.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

async function guard(job: () => Promise<void>): Promise<void> {
  const mine = generation;
  try {
    await job();
  } catch (err) {
    // A thread left meanwhile keeps its errors to itself.
    if (!(await onUnpaired(err)) && mine === generation) threadError.value = (err as Error).message;
  }
}

/** Opens a thread: its newest page, then marks it read (which the daemon tells every device as chat.read). */
export function openThread(agent: string | null): Promise<void> {
  const mine = ++generation;
  openAgent.value = agent;
  messages.value = [];
  older.value = null;
  threadError.value = null;
  if (!agent) return Promise.resolve();
  return guard(async () => {
    const page = await api.messages(agent, { limit: PAGE });
    if (mine !== generation) return;
    // Events that arrived while the page loaded are already in `messages`: merge rather than overwrite.
    messages.value = messages.value.reduce(upsert, page.messages);
    older.value = page.older;
    await markRead();
  });
}

async function markRead(): Promise<void> {
  const agent = openAgent.value;
  if (!agent) return;
  const marker = await api.markRead(agent);
  setUnread(marker.agent, marker.unread);
}

/** After a reconnect: the newest page again, merged into what is shown (events missed meanwhile are in it). */
export function refreshOpenThread(): Promise<void> {
  const agent = openAgent.value;
  if (!agent) return Promise.resolve();
  const mine = generation;
  return guard(async () => {
    const page = await api.messages(agent, { limit: PAGE });
    if (mine !== generation) return;
    messages.value = page.messages.reduce(upsert, messages.value);
    await markRead();
  });
}

/** The page before the oldest one shown. */
export function loadOlder(): Promise<void> {
  const agent = openAgent.value;
  const before = older.value;
  if (!agent || !before || loadingOlder.value) return Promise.resolve();
  const mine = generation;
  loadingOlder.value = true;
  return guard(async () => {
    const page = await api.messages(agent, { limit: PAGE, before });
    if (mine !== generation) return;
    messages.value = page.messages.reduce(upsert, messages.value);
    older.value = page.older;
  }).finally(() => (loadingOlder.value = false));
}

let readTimer: ReturnType<typeof setTimeout> | null = null;

/** Live events for the open thread: a new or changed message goes in by id; one arriving while open is read. */
export function applyThreadEvent(e: FleetEvent): void {
  if (e.type !== 'chat.message' && e.type !== 'chat.updated') return;
  const m = e.data.message;
  if (m.agent !== openAgent.value) return;
  messages.value = upsert(messages.value, m);
  if (e.type === 'chat.message' && m.direction === 'out' && document.visibilityState === 'visible' && !readTimer)
    readTimer = setTimeout(() => {
      readTimer = null;
      void guard(markRead);
    }, 300);
}
