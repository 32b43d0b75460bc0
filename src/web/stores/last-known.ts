import { batch, effect } from '@preact/signals';
import type { Caller } from '../../wire/caller.js';
import type { Agent } from '../../wire/fleet.js';
import type { HostEntry } from '../../wire/host.js';
import type { Message } from '../../wire/message.js';
import { kv } from '../api/idb.js';
import { caller } from './caller.js';
import { connection } from './connection.js';
import { agents, loaded, threadNames, unread } from './fleet.js';
import { hosts } from './hosts.js';
import { cards } from './inbox.js';
import { messages, newer, older, openAgent, showLastKnown, type LastKnownPage } from './thread.js';

/**
 * The fleet as it last was while live: its agents, hosts, unread counts, threads, open cards and what this device
 * may do. Shown at start until the daemon's own snapshot replaces it, so the app opens with no network at all.
 */
interface LastFleet {
  agents: Agent[];
  hosts: readonly HostEntry[] | null;
  unread: [string, number][];
  threads: string[];
  open: Message[];
  caller: Caller | null;
}

const db = kv<LastFleet | LastKnownPage>('last-known');
const FLEET = 'fleet';
const threadKey = (agent: string) => `thread:${agent}`;
/** A thread keeps its newest page: what it opens at. */
const KEEP = 50;
/** Writes at most this often, however fast events come, each with what is held when it runs. */
const SAVE_EVERY_MS = 500;

function restore(f: LastFleet): void {
  batch(() => {
    agents.value = new Map(f.agents.map((a) => [a.name, a]));
    hosts.value = f.hosts;
    unread.value = new Map(f.unread);
    threadNames.value = new Set(f.threads);
    cards.value = new Map(f.open.map((m) => [m.id, m]));
    caller.value = f.caller;
    loaded.value = true;
  });
}

/** The fleet, and no page kept for a thread that is gone from it (its agent removed, its messages with it). */
async function saveFleet(): Promise<void> {
  const threads = [...threadNames.peek()];
  await db.set(FLEET, {
    agents: [...agents.peek().values()],
    hosts: hosts.peek(),
    unread: [...unread.peek()],
    threads,
    open: [...cards.peek().values()],
    caller: caller.peek(),
  });
  const known = new Set([...threads, ...agents.peek().keys()].map(threadKey));
  for (const key of await db.keys()) if (key !== FLEET && !known.has(key)) await db.delete(key);
}

/** The open thread's newest messages, when its window reaches the live end. */
function saveThread(): Promise<void> | undefined {
  const agent = openAgent.peek();
  const list = messages.peek();
  if (!agent || newer.peek() !== null || list.length === 0) return;
  const kept = list.slice(-KEEP);
  return db.set(threadKey(agent), {
    messages: kept,
    older: kept.length < list.length ? kept[0]!.id : older.peek(),
  });
}

/** Runs `save` after what `track` reads changed while live, at most once per SAVE_EVERY_MS. */
function saveOnChange(track: () => void, save: () => Promise<void> | undefined): () => void {
  let timer: ReturnType<typeof setTimeout> | null = null;
  const stop = effect(() => {
    track();
    if (connection.value !== 'live' || timer) return;
    timer = setTimeout(() => {
      timer = null;
      // Only what the daemon sent while live is written: never the last known state read back.
      if (connection.peek() === 'live') void save()?.catch(() => undefined);
    }, SAVE_EVERY_MS);
  });
  return () => {
    stop();
    if (timer) clearTimeout(timer);
  };
}

/**
 * Opens with the last known fleet (unless the daemon answered first) and each thread with its last known page, then
 * keeps both current while live. The offline badge is the connection's: what shows is not live until it says so.
 */
export function startLastKnown(): () => void {
  void db
    .get(FLEET)
    .then((f) => f && !loaded.peek() && restore(f as LastFleet))
    .catch(() => undefined);
  const stops = [
    effect(() => {
      const agent = openAgent.value;
      if (agent)
        void db
          .get(threadKey(agent))
          .then((p) => p && showLastKnown(agent, p as LastKnownPage))
          .catch(() => undefined);
    }),
    saveOnChange(() => {
      void [agents.value, hosts.value, unread.value, threadNames.value, cards.value, caller.value];
    }, saveFleet),
    saveOnChange(() => void [openAgent.value, messages.value, newer.value], saveThread),
  ];
  return () => stops.forEach((stop) => stop());
}
