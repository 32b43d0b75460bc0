import { batch, signal } from '@preact/signals';
import type { Message } from '../../wire/message.js';
import type { MessagePage } from '../api/client.js';
import type { FleetEvent } from '../api/events.js';
import { announce, resetAnnouncements } from './announce.js';
import { api, onUnpaired } from './auth.js';
import { agents, setUnread } from './fleet.js';
import { hostOf } from './hosts.js';
import { merge, overLastKnown, placeLive, type LiveChange } from './message-list.js';

const PAGE = 50;
/** Opened at a message: this many before it, the rest of a page from it on. */
const BEFORE_FOCUS = 20;

/**
 * The open thread: its agent, the window of its messages loaded so far (oldest first, by id; a thread scrolled
 * through keeps every page it loaded) and the cursors for the pages before and after that window. `newer` is null
 * when the window reaches the live end, which is where live messages go in; opened at a message in the middle, the
 * window grows down by pages until it does.
 */
export const openAgent = signal<string | null>(null);
export const messages = signal<readonly Message[]>([]);
export const older = signal<string | null>(null);
export const newer = signal<string | null>(null);
export const loadingOlder = signal(false);
export const loadingNewer = signal(false);
export const threadError = signal<string | null>(null);
/** The message the thread was opened at (`#/t/<agent>/m/<id>`), once it is loaded: the view scrolls to it. */
export const focus = signal<string | null>(null);
/**
 * Agent messages that arrived live since the reader was last at the bottom (the view calls `seenAll` there): the
 * "N new messages" pill. A window short of the live end counts them too, though they are not in it.
 */
export const unseen = signal(0);

/**
 * Bumped when the owner sends into the open thread: the view goes to the newest and follows it again, so the reply
 * to what they just sent is never left below the fold, wherever they had scrolled.
 */
export const followRequest = signal(0);

export function followOwnSend(agent: string): void {
  if (agent === openAgent.peek()) followRequest.value++;
}

export function seenAll(): void {
  if (unseen.value) unseen.value = 0;
}

let generation = 0;

/** A thread's newest page as last seen live (stores/last-known.ts), with the cursor to the messages before it. */
export interface LastKnownPage {
  messages: Message[];
  older: string | null;
}

/** Whether the window holds the last known page, until the daemon's own replaces it. */
let fromLastKnown = false;
/** Whether the daemon's page for the open thread came: the last known one is then too late to show. */
let answered = false;

/** Shows a thread's last known page while the daemon's has not come (or cannot: offline). */
export function showLastKnown(agent: string, page: LastKnownPage): void {
  if (agent !== openAgent.peek() || answered || messages.peek().length > 0) return;
  fromLastKnown = true;
  batch(() => {
    messages.value = page.messages;
    older.value = page.older;
    // The daemon could not be asked (offline): the page says more than the error did.
    threadError.value = null;
  });
}

async function guard(job: () => Promise<void>): Promise<void> {
  const mine = generation;
  try {
    await job();
  } catch (err) {
    // A thread left meanwhile keeps its errors to itself. One on screen stays as it is whatever failed behind it (a
    // read marker, a page, a refresh as the signal dropped): the connection badge says the daemon is out of reach and
    // the reconnect refreshes it. Only a thread with nothing to show says why in its place.
    if (!(await onUnpaired(err)) && mine === generation && messages.value.length === 0)
      // fetch's TypeError is the network's: offline, a thread never opened on this device has no last known page.
      threadError.value =
        err instanceof TypeError
          ? 'Leo cannot be reached, and this thread is not kept on this device yet.'
          : (err as Error).message;
  }
}

function show(page: MessagePage): void {
  answered = true;
  // Events that arrived while the page loaded are already in `messages`: merge rather than overwrite.
  batch(() => {
    messages.value = fromLastKnown
      ? overLastKnown(messages.value, page.messages)
      : merge(messages.value, page.messages);
    fromLastKnown = false;
    older.value = page.older;
    newer.value = page.newer;
  });
}

/**
 * The window around one message: the page before it, then a page from it on (`after` the message just before it,
 * or the start of the thread). Null when the thread has no such message.
 */
async function around(agent: string, id: string): Promise<MessagePage | null> {
  const before = await api.messages(agent, { limit: BEFORE_FOCUS, before: id });
  const from = await api.messages(agent, { limit: PAGE, after: before.messages.at(-1)?.id ?? '0' });
  if (from.messages[0]?.id !== id) return null;
  return { messages: [...before.messages, ...from.messages], older: before.older, newer: from.newer };
}

/**
 * Opens a thread, at its newest page or at one message (`at`), then marks it read (which the daemon tells every
 * device as chat.read). A message the thread does not have opens the newest page.
 */
export function openThread(agent: string | null, at?: string): Promise<void> {
  const mine = ++generation;
  openAgent.value = agent;
  messages.value = [];
  older.value = null;
  newer.value = null;
  focus.value = null;
  unseen.value = 0;
  threadError.value = null;
  fromLastKnown = answered = false;
  resetAnnouncements();
  if (!agent) return Promise.resolve();
  return guard(async () => {
    const found = at ? await around(agent, at) : null;
    const page = found ?? (await api.messages(agent, { limit: PAGE }));
    if (mine !== generation) return;
    batch(() => {
      // Opened at a message, live events that came meanwhile may not belong in the window: start from it alone.
      if (found) messages.value = [];
      show(page);
      focus.value = found ? at! : null;
    });
    await markRead();
  });
}

/** The newest page in place of the window (the "new messages" pill when the window stops short of the live end). */
export function openLatest(): Promise<void> {
  return openThread(openAgent.value);
}

/** Marks the open thread read. One that fails (the signal gone) is not the reader's concern: the next one covers it. */
async function markRead(): Promise<void> {
  const agent = openAgent.value;
  if (!agent) return;
  try {
    const marker = await api.markRead(agent);
    setUnread(marker.agent, marker.unread);
  } catch (err) {
    await onUnpaired(err);
  }
}

/** After a reconnect: the newest page again, merged into a window at the live end (events missed meanwhile). */
export function refreshOpenThread(): Promise<void> {
  const agent = openAgent.value;
  if (!agent || newer.value) return Promise.resolve();
  const mine = generation;
  return guard(async () => {
    const page = await api.messages(agent, { limit: PAGE });
    if (mine !== generation) return;
    // The newest page may not reach back to the window (more than a page missed), or there was no window (the open
    // itself failed, offline): then it replaces it, and an error the failed open left is over.
    const last = messages.value.at(-1)?.id;
    const touches = last !== undefined && (!page.messages[0] || page.messages[0].id <= last);
    batch(() => {
      messages.value = touches ? merge(messages.value, page.messages) : page.messages;
      if (!touches) older.value = page.older;
      threadError.value = null;
      // The window is the daemon's now: a last known page it touches is the same thread, with nothing missed between.
      fromLastKnown = false;
      answered = true;
    });
    await markRead();
  });
}

function pageAt(cursor: 'older' | 'newer'): Promise<void> {
  const agent = openAgent.value;
  const at = cursor === 'older' ? older.value : newer.value;
  const loading = cursor === 'older' ? loadingOlder : loadingNewer;
  if (!agent || !at || loading.value) return Promise.resolve();
  const mine = generation;
  loading.value = true;
  return guard(async () => {
    const page = await api.messages(agent, { limit: PAGE, ...(cursor === 'older' ? { before: at } : { after: at }) });
    if (mine !== generation) return;
    batch(() => {
      messages.value = merge(messages.value, page.messages);
      if (cursor === 'older') older.value = page.older;
      else newer.value = page.newer;
    });
  }).finally(() => {
    if (mine === generation) loading.value = false;
  });
}

/** The page before the oldest message loaded. */
export const loadOlder = () => pageAt('older');
/** The page after the newest message loaded, when the window stops short of the live end. */
export const loadNewer = () => pageAt('newer');

let readTimer: ReturnType<typeof setTimeout> | null = null;

/** A live event, or a message the daemon answered a send with (`sent`): that one only goes in if still absent. */
type Queued = { type: LiveChange; message: Message } | { type: 'sent'; message: Message };

let queued: Queued[] = [];
let flushing = false;

function enqueue(q: Queued): void {
  queued.push(q);
  if (flushing) return;
  flushing = true;
  if (document.visibilityState === 'visible') requestAnimationFrame(flush);
  else setTimeout(flush, 50);
}

/**
 * Live events for the open thread, applied once a frame: a burst (hundreds a second) then costs one render, not one
 * per event. A hidden page gets no animation frames, so there a timer does it.
 */
export function applyThreadEvent(e: FleetEvent): void {
  // The hub refetched a host (its link back, or it restarted): what the host stored while the hub could not hear it
  // came as no event (a host keeps no event history), so the open thread of one of its agents is fetched again.
  if (e.type === 'host_state' && openAgent.value && hostOf(openAgent.value) === e.data.host) void refreshOpenThread();
  if (e.type !== 'chat.message' && e.type !== 'chat.updated') return;
  if (e.data.message.agent !== openAgent.value) return;
  enqueue({ type: e.type, message: e.data.message });
}

/**
 * A message a send stored, from the POST's answer: into the open thread at once when the stream has not brought it
 * (its chat.message may come after the answer). Judged when the frame applies it, after any events queued before it,
 * so it never lands over what the stream brought: that may be newer (already failed).
 */
export function placeSent(message: Message): void {
  if (message.agent !== openAgent.value) return;
  enqueue({ type: 'sent', message });
}

function flush(): void {
  flushing = false;
  const events = queued;
  queued = [];
  batch(() =>
    events.forEach((q) => {
      if (q.type !== 'sent') applyOne(q.type, q.message);
      else if (!messages.value.some((m) => m.id === q.message.id)) applyOne('chat.message', q.message);
    }),
  );
}

/**
 * A new or changed message goes in by id, if it belongs in the window (placeLive); an agent's new message is counted
 * even outside it, announced and, while the page is visible, read.
 */
function applyOne(type: LiveChange, m: Message): void {
  if (m.agent !== openAgent.value) return;
  const list = messages.value;
  const placed = placeLive(list, newer.value === null, type, m);
  if (placed !== list) messages.value = placed;
  if (type !== 'chat.message' || m.direction !== 'out') return;
  unseen.value++;
  if (m.kind !== 'system') announce(agents.value.get(m.agent)?.display_name ?? m.agent, m.text || 'sent a file');
  if (document.visibilityState === 'visible' && !readTimer)
    readTimer = setTimeout(() => {
      readTimer = null;
      void markRead();
    }, 300);
}
