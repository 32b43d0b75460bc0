import { effect, signal } from '@preact/signals';
import { ApiError } from '../api/client.js';
import { kv } from '../api/idb.js';
import { api, onUnpaired } from './auth.js';
import { backoffMs } from './backoff.js';
import { connection } from './connection.js';
import { followOwnSend, placeSent } from './thread.js';
import { downHosts, unreachable } from './hosts.js';

/** A file of an outbox entry: its upload's id once uploaded; until then the bytes themselves (kept in IndexedDB). */
export interface OutboxFile {
  key: string;
  name: string;
  type: string;
  size: number;
  id?: string;
  blob?: Blob;
  /** A voice note recorded in the app: its length, known from the recorder (the player shows it before upload). */
  duration_ms?: number;
}

/**
 * A message the owner sent that the daemon has not yet confirmed. Written to IndexedDB before any request, so a
 * reload, a crash or an offline spell loses nothing; sent under its client id, so a retry after a lost answer is
 * answered with the message already stored instead of storing a second one.
 */
export interface OutboxEntry {
  client_id: string;
  agent: string;
  text: string;
  files: OutboxFile[];
  created: number;
  /** The daemon refused it for good (a 4xx other than 408/429): its words. The entry waits for Retry or Discard. */
  refused?: string;
}

const db = kv<OutboxEntry>('outbox');
export const outbox = signal<readonly OutboxEntry[]>([]);
/** The entry being sent right now, and its uploads' progress (0–1) by file key. */
export const sending = signal<string | null>(null);
export const uploadProgress = signal<ReadonlyMap<string, number>>(new Map());

let attempt = 0;
let timer: ReturnType<typeof setTimeout> | null = null;
let running = false;

const byCreated = (a: OutboxEntry, b: OutboxEntry) => a.created - b.created;

async function save(e: OutboxEntry): Promise<void> {
  await db.set(e.client_id, e);
  outbox.value = [...outbox.value.filter((x) => x.client_id !== e.client_id), e].sort(byCreated);
}

async function remove(clientId: string): Promise<void> {
  await db.delete(clientId);
  outbox.value = outbox.value.filter((x) => x.client_id !== clientId);
}

/** Queues a message: stored durably first, shown at once, sent when the stream is live. */
export async function enqueue(agent: string, text: string, files: OutboxFile[] = []): Promise<OutboxEntry> {
  const entry: OutboxEntry = { client_id: crypto.randomUUID(), agent, text, files, created: Date.now() };
  await save(entry);
  followOwnSend(agent);
  void pump();
  return entry;
}

export async function retry(clientId: string): Promise<void> {
  const e = outbox.value.find((x) => x.client_id === clientId);
  if (!e) return;
  const { refused: _, ...again } = e;
  await save(again);
  attempt = 0;
  void pump();
}

export const discard = (clientId: string): Promise<void> => remove(clientId);

/** A refusal the same request will meet again: any 4xx but 408 (timeout) and 429 (busy); or an answer not understood. */
export function permanent(err: unknown): boolean {
  if (err instanceof ApiError) return err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
  return !(err instanceof TypeError);
}

async function deliver(e: OutboxEntry): Promise<void> {
  let entry = e;
  for (const f of entry.files) {
    if (f.id || !f.blob) continue;
    const key = `${entry.client_id}/${f.key}`;
    const ref = await api.upload(entry.agent, f.blob, f.name, (p) => {
      uploadProgress.value = new Map(uploadProgress.value).set(key, p);
    });
    // Recorded before the send, so a reload after this point does not upload the file a second time.
    const { blob: _, ...uploaded } = f;
    entry = { ...entry, files: entry.files.map((x) => (x.key === f.key ? { ...uploaded, id: ref.id } : x)) };
    await save(entry);
  }
  const ids = entry.files.map((f) => f.id!);
  const { message } = await api.send(entry.agent, {
    text: entry.text,
    client_id: entry.client_id,
    ...(ids.length ? { attachments: ids } : {}),
  });
  // The outbox bubble gives way to the stored message.
  placeSent(message);
  await remove(entry.client_id);
}

/**
 * Sends what waits, oldest first and one at a time (so a thread gets them in the order they were typed), while the
 * event stream is live and its agent's machine reachable. A network error, a 5xx, a 408 or a 429 waits (Retry-After when the daemon gave one, else
 * backoff) and tries the same client id again; any other refusal parks that entry as not sent.
 */
export async function pump(): Promise<void> {
  if (running || connection.value !== 'live') return;
  running = true;
  try {
    for (;;) {
      if (connection.value !== 'live') return;
      // A message to an agent of a host the hub cannot reach waits for it, without holding up any other machine's.
      const next = outbox.value.find((x) => !x.refused && !unreachable(x.agent));
      if (!next) return;
      sending.value = next.client_id;
      try {
        await deliver(next);
        attempt = 0;
      } catch (err) {
        if (await onUnpaired(err)) return;
        if (permanent(err)) {
          await save({ ...next, refused: err instanceof Error ? err.message : String(err) });
          continue;
        }
        const delay = (err instanceof ApiError ? err.retryAfterMs : undefined) ?? backoffMs(attempt++);
        if (timer) clearTimeout(timer);
        timer = setTimeout(() => {
          timer = null;
          void pump();
        }, delay);
        return;
      }
    }
  } finally {
    sending.value = null;
    running = false;
  }
}

/** Loads what a previous page left unsent and sends whenever the stream (re)turns live. */
export function startOutbox(): () => void {
  void db.all().then((all) => {
    const known = new Set(outbox.value.map((e) => e.client_id));
    outbox.value = [...outbox.value, ...all.filter((e) => !known.has(e.client_id))].sort(byCreated);
    void pump();
  });
  return effect(() => {
    // A host coming back releases what waited for it.
    void downHosts.value;
    if (connection.value === 'live') {
      attempt = 0;
      void pump();
    }
  });
}
