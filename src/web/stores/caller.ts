import { computed, signal } from '@preact/signals';
import type { Caller } from '../../wire/caller.js';
import { ApiError } from '../api/client.js';
import { api, onUnpaired } from './auth.js';

/** Who this device is to the daemon (`GET /api/v1/me`), read with every snapshot; null until the first. */
export const caller = signal<Caller | null>(null);

/**
 * Whether this device holds the fleet scope: spawn, environments, template, start/stop, rename, remove, running a
 * task. Its controls stay hidden until the daemon says so, rather than shown and then refused.
 */
export const mayRunFleet = computed(() => caller.value?.fleet === true);

export function applyCaller(c: Caller): void {
  caller.value = c;
}

/** A 403 means what this device may do changed under it (the scope was taken back): ask again, and hide at once. */
export function recheckCallerAfter(err: unknown): void {
  if (!(err instanceof ApiError) || err.status !== 403) return;
  api
    .me()
    .then(applyCaller)
    .catch((e) => void onUnpaired(e));
}
