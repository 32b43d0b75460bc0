import { signal } from '@preact/signals';
import { Api, UnpairedError } from '../api/client.js';
import { kv, tokenDb } from '../api/idb.js';

/**
 * Whether this browser is paired. `unpaired`: it never was (or its token is gone); `revoked`: the daemon refused the
 * token it holds, i.e. the device was revoked. The token itself lives in IndexedDB and in this module, never in a
 * signal the UI renders.
 */
export type AuthState = 'loading' | 'unpaired' | 'pairing' | 'paired' | 'revoked';
export const auth = signal<AuthState>('loading');
export const authError = signal<string | null>(null);

let token: string | null = null;
export const api = new Api(() => token);

/** The pairing code from a `#pair=<code>` link, erased from the address bar before anything else happens. */
function takePairingCode(): string | null {
  const m = /^#pair=([^&]+)/.exec(location.hash);
  if (!m) return null;
  history.replaceState(null, '', location.pathname + location.search);
  return decodeURIComponent(m[1]!);
}

export async function startAuth(): Promise<void> {
  const code = takePairingCode();
  if (code) {
    auth.value = 'pairing';
    try {
      const paired = await api.pair(code);
      await tokenDb.set(paired.token);
      token = paired.token;
      auth.value = 'paired';
      return;
    } catch (err) {
      authError.value = (err as Error).message;
      // A spent link on an already-paired browser (a reload of the pairing tab) keeps the pairing it has.
    }
  }
  token = await tokenDb.get();
  auth.value = token ? 'paired' : 'unpaired';
}

/** Any request that met a 401 lands here: forget the token and say why. */
export async function onUnpaired(err: unknown): Promise<boolean> {
  if (!(err instanceof UnpairedError)) return false;
  token = null;
  // Said first: what the owner sees never waits on IndexedDB (an open blocked by another tab's older version).
  auth.value = 'revoked';
  // A revoked device keeps nothing of the fleet either; nothing writes it once the stream is down (last-known.ts).
  await Promise.all([tokenDb.clear(), kv('last-known').clear()]).catch(() => undefined);
  return true;
}
