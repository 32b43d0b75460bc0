/**
 * The paired-device token, kept in IndexedDB: never in the URL, localStorage-visible globals, logs or the page.
 * One object store, one key.
 */
const DB = 'leo';
const STORE = 'auth';
const KEY = 'device-token';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, 1);
    req.onupgradeneeded = () => req.result.createObjectStore(STORE);
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function run<T>(mode: IDBTransactionMode, op: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const req = op(db.transaction(STORE, mode).objectStore(STORE));
      req.onsuccess = () => resolve(req.result);
      req.onerror = () => reject(req.error);
    });
  } finally {
    db.close();
  }
}

export const tokenDb = {
  get: async (): Promise<string | null> => ((await run('readonly', (s) => s.get(KEY))) as string | undefined) ?? null,
  set: async (token: string): Promise<void> => void (await run('readwrite', (s) => s.put(token, KEY))),
  clear: async (): Promise<void> => void (await run('readwrite', (s) => s.delete(KEY))),
};
