/**
 * The app's one IndexedDB database (`leo`): the device token (`auth`), the durable outbox (`outbox`, keyed by client
 * id), per-thread drafts (`drafts`, keyed by agent) and the last known fleet and threads (`last-known`, for opening
 * offline: stores/last-known.ts). Every call opens, runs one request in one transaction and closes, so a second tab's
 * upgrade is never blocked by a connection this one holds.
 */
const DB = 'leo';
const VERSION = 3;
export type Store = 'auth' | 'outbox' | 'drafts' | 'last-known';
const STORES: Store[] = ['auth', 'outbox', 'drafts', 'last-known'];

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, VERSION);
    // Version 1 had `auth` only, 2 no `last-known`: each upgrade adds what is missing and keeps what is there (the
    // token survives).
    req.onupgradeneeded = () => {
      for (const s of STORES) if (!req.result.objectStoreNames.contains(s)) req.result.createObjectStore(s);
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function run<T>(store: Store, mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const tx = db.transaction(store, mode);
      const req = op(tx.objectStore(store));
      let result: T;
      req.onsuccess = () => (result = req.result);
      // Resolved on commit, not on the request's success: a write is durable before anything is sent after it.
      tx.oncomplete = () => resolve(result);
      tx.onerror = () => reject(tx.error ?? req.error);
      tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
    });
  } finally {
    db.close();
  }
}

/** One object store as a small key-value map. */
export function kv<V>(store: Store) {
  return {
    get: async (key: string): Promise<V | null> =>
      ((await run(store, 'readonly', (s) => s.get(key))) as V | undefined) ?? null,
    all: async (): Promise<V[]> => (await run(store, 'readonly', (s) => s.getAll())) as V[],
    keys: async (): Promise<string[]> => (await run(store, 'readonly', (s) => s.getAllKeys())) as string[],
    set: async (key: string, value: V): Promise<void> => void (await run(store, 'readwrite', (s) => s.put(value, key))),
    delete: async (key: string): Promise<void> => void (await run(store, 'readwrite', (s) => s.delete(key))),
    clear: async (): Promise<void> => void (await run(store, 'readwrite', (s) => s.clear())),
  };
}

/** The paired-device token: never in the URL, localStorage, logs or the page. */
const auth = kv<string>('auth');
const TOKEN = 'device-token';
export const tokenDb = {
  get: () => auth.get(TOKEN),
  set: (token: string) => auth.set(TOKEN, token),
  clear: () => auth.delete(TOKEN),
};
