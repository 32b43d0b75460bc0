import { effect, signal } from '@preact/signals';
import { ApiError } from '../api/client.js';
import { kv } from '../api/idb.js';
import { api, onUnpaired } from './auth.js';
import { connection } from './connection.js';
import { downHosts, unreachable } from './hosts.js';
import type { OutboxFile } from './outbox.js';

/**
 * A file picked (or dropped) for the next message in a thread: uploaded at once while the stream is live, with its
 * progress; picked offline it waits, and if sent before it could upload its bytes go into the outbox with the message.
 */
export interface Staged {
  key: string;
  agent: string;
  file: File;
  progress: number;
  id?: string;
  error?: string;
  uploading: boolean;
}

export const staged = signal<readonly Staged[]>([]);
const aborts = new Map<string, AbortController>();
let seq = 0;

/**
 * A thread's staged files, kept with its draft (the drafts store, under `<agent>#files`: agent names hold no `#`) so
 * a reload finds them again: the bytes, and the upload's id once the daemon has them (unclaimed for a day at most).
 */
interface Kept {
  name: string;
  type: string;
  blob: Blob;
  id?: string;
}
const kept = kv<Kept[]>('drafts');
const keptKey = (agent: string) => `${agent}#files`;

function keep(agent: string): void {
  const files = staged.value
    .filter((s) => s.agent === agent)
    .map((s): Kept => ({ name: s.file.name, type: s.file.type, blob: s.file, ...(s.id ? { id: s.id } : {}) }));
  void (files.length ? kept.set(keptKey(agent), files) : kept.delete(keptKey(agent))).catch(() => {});
}

function patch(key: string, p: Partial<Staged>): void {
  staged.value = staged.value.map((s) => (s.key === key ? { ...s, ...p } : s));
  if (p.id) {
    const s = staged.value.find((x) => x.key === key);
    if (s) keep(s.agent);
  }
}

/** A thread's kept files back in the composer after a reload (once per thread; ones not yet uploaded upload). */
export async function restoreStaged(agent: string): Promise<void> {
  if (staged.value.some((s) => s.agent === agent)) return;
  const files = (await kept.get(keptKey(agent)).catch(() => null)) ?? [];
  if (!files.length || staged.value.some((s) => s.agent === agent)) return;
  const back = files.map((f): Staged => ({
    key: `f${++seq}`,
    agent,
    file: new File([f.blob], f.name, { type: f.type }),
    progress: f.id ? 1 : 0,
    uploading: false,
    ...(f.id ? { id: f.id } : {}),
  }));
  staged.value = [...staged.value, ...back];
  for (const s of back) if (!s.id && canUpload(agent)) void upload(s);
}

/** Uploads go to the agent's own machine: while the stream is live and, on a hub, that machine reachable. */
const canUpload = (agent: string) => connection.value === 'live' && !unreachable(agent);

async function upload(s: Staged): Promise<void> {
  const abort = new AbortController();
  aborts.set(s.key, abort);
  patch(s.key, { uploading: true, progress: 0 });
  try {
    const ref = await api.upload(s.agent, s.file, s.file.name, (progress) => patch(s.key, { progress }), abort.signal);
    patch(s.key, { id: ref.id, progress: 1, uploading: false });
  } catch (err) {
    if (await onUnpaired(err)) return;
    // A network failure leaves it waiting (it uploads when the stream is back, or goes in the outbox as bytes).
    const why = err instanceof ApiError ? err.message : null;
    patch(s.key, { uploading: false, progress: 0, ...(why ? { error: why } : {}) });
  } finally {
    aborts.delete(s.key);
  }
}

export function stage(agent: string, files: Iterable<File>): void {
  const added = [...files].map((file): Staged => ({ key: `f${++seq}`, agent, file, progress: 0, uploading: false }));
  staged.value = [...staged.value, ...added];
  keep(agent);
  if (canUpload(agent)) for (const s of added) void upload(s);
}

export function unstage(key: string): void {
  aborts.get(key)?.abort();
  const gone = staged.value.find((s) => s.key === key);
  staged.value = staged.value.filter((s) => s.key !== key);
  if (gone) keep(gone.agent);
}

export const stagedFor = (agent: string) => staged.value.filter((s) => s.agent === agent);

/** Takes a thread's staged files for a message: uploaded ones by id, the rest as bytes for the outbox. */
export function takeStaged(agent: string): OutboxFile[] {
  const mine = stagedFor(agent);
  staged.value = staged.value.filter((s) => s.agent !== agent);
  keep(agent);
  return mine.map((s) => {
    aborts.get(s.key)?.abort();
    const f = { key: s.key, name: s.file.name, type: s.file.type, size: s.file.size };
    return s.id ? { ...f, id: s.id } : { ...f, blob: s.file };
  });
}

/** Files picked while the stream was down, or their agent's host unreachable, upload once both are back. */
export function startUploads(): () => void {
  return effect(() => {
    if (connection.value !== 'live') return;
    void downHosts.value;
    for (const s of staged.peek()) if (!s.id && !s.uploading && !s.error && canUpload(s.agent)) void upload(s);
  });
}
