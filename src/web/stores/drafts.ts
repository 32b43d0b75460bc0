import { kv } from '../api/idb.js';

/** What the owner has typed but not sent, per thread: survives switching threads and a reload. */
const db = kv<string>('drafts');
const DEBOUNCE_MS = 250;
const timers = new Map<string, ReturnType<typeof setTimeout>>();
const unsaved = new Map<string, string>();

export const loadDraft = (agent: string): Promise<string> => db.get(agent).then((t) => t ?? '');

function write(agent: string): Promise<void> {
  const text = unsaved.get(agent);
  unsaved.delete(agent);
  clearTimeout(timers.get(agent));
  timers.delete(agent);
  if (text === undefined) return Promise.resolve();
  return text ? db.set(agent, text) : db.delete(agent);
}

/** Saves a little after the last keystroke; `flush` saves now (leaving the thread, sending). */
export function saveDraft(agent: string, text: string): void {
  unsaved.set(agent, text);
  clearTimeout(timers.get(agent));
  timers.set(
    agent,
    setTimeout(() => void write(agent), DEBOUNCE_MS),
  );
}

export const flushDraft = (agent: string): Promise<void> => write(agent);
