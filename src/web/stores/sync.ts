import type { FleetEvent } from '../api/events.js';
import type { StateSnapshot } from '../../wire/fleet.js';
import { api, onUnpaired } from './auth.js';
import { backoffMs } from './backoff.js';
import { connection } from './connection.js';
import { applyEvent, applySnapshot, applyThreads } from './fleet.js';
import { applyThreadEvent, refreshOpenThread } from './thread.js';
import { applyChatEvent, applyOpen } from './inbox.js';
import { applyTaskEvent, refreshTasks } from './tasks.js';
import { applyCaller } from './caller.js';
import { applyHostEvent, applyHosts } from './hosts.js';
import { applyMoveEvent, onMoveHello } from './moves.js';
import { applyWatchEvent } from './chat-watch.js';
import { checkForUpdate } from './shell-update.js';

const REFETCH_DEBOUNCE_MS = 750;

function applyState(state: StateSnapshot): void {
  applySnapshot(state);
  applyHosts(state.hosts);
}

/**
 * Keeps the fleet current: opens the event stream, and once its hello arrives fetches the snapshot and the threads,
 * applying events that came meanwhile after them (so nothing falls in a gap). A dropped stream reconnects with
 * backoff and refetches; a new boot_id (the daemon restarted) refetches too. The page becoming visible again
 * reconnects at once instead of waiting out the backoff.
 */
export function startSync(): () => void {
  let stopped = false;
  let attempt = 0;
  let connectedBefore = false;
  let abort: AbortController | null = null;
  let wake: (() => void) | null = null;
  const timers = new Map<'state' | 'threads', ReturnType<typeof setTimeout>>();

  const refetch = (what: 'state' | 'threads') => {
    if (timers.has(what)) return;
    timers.set(
      what,
      setTimeout(() => {
        timers.delete(what);
        const job = what === 'state' ? api.state().then(applyState) : api.threads().then(applyThreads);
        job.catch((err) => void onUnpaired(err));
      }, REFETCH_DEBOUNCE_MS),
    );
  };

  const once = async () => {
    abort = new AbortController();
    let ready = false;
    const early: FleetEvent[] = [];
    const apply = (e: FleetEvent) => {
      applyThreadEvent(e);
      applyChatEvent(e);
      applyTaskEvent(e);
      applyMoveEvent(e);
      applyWatchEvent(e);
      const again = applyEvent(e);
      if (again) refetch(again);
      const hostsAgain = applyHostEvent(e);
      if (hostsAgain) refetch(hostsAgain);
    };
    let loading: Promise<void> | null = null;
    let failure: unknown = null;
    // Every hello (a first connect, a reconnect, a restarted daemon's new boot_id) starts from a fresh snapshot.
    await api
      .events((e) => {
        if (e.type === 'hello') {
          // A reconnect may be to an upgraded daemon: its build is offered as soon as it is installed.
          if (connectedBefore) checkForUpdate();
          connectedBefore = true;
          onMoveHello(e.data.features, (agent) => api.moves(agent)).catch((err) => void onUnpaired(err));
          // What this device may do is read again too: a change to its scope ends its streams, so it lands here.
          const reads = [api.state(), api.threads(), api.openCards(), api.me()] as const;
          loading = Promise.all(reads).then(([state, threads, open, me]) => {
            applyCaller(me);
            applyState(state);
            applyThreads(threads);
            void refreshOpenThread();
            refreshTasks();
            applyOpen(open);
            for (const queued of early.splice(0)) apply(queued);
            ready = true;
            attempt = 0;
            connection.value = 'live';
          });
          loading.catch((err) => {
            failure = err;
            abort?.abort();
          });
          return;
        }
        if (ready) apply(e);
        else early.push(e);
      }, abort.signal)
      .catch((err) => {
        if (!failure) throw err;
      });
    if (failure) throw failure;
  };

  const loop = async () => {
    while (!stopped) {
      try {
        await once();
      } catch (err) {
        if (await onUnpaired(err)) return;
      }
      if (stopped) return;
      connection.value = navigator.onLine ? 'reconnecting' : 'offline';
      const delay = backoffMs(attempt++);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, delay);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      wake = null;
    }
  };

  const now = () => {
    attempt = 0;
    wake?.();
  };
  const onVisible = () => {
    if (document.visibilityState === 'visible') now();
  };
  document.addEventListener('visibilitychange', onVisible);
  window.addEventListener('online', now);
  const onOffline = () => {
    connection.value = 'offline';
    abort?.abort();
  };
  window.addEventListener('offline', onOffline);
  void loop();
  return () => {
    stopped = true;
    abort?.abort();
    document.removeEventListener('visibilitychange', onVisible);
    window.removeEventListener('online', now);
    window.removeEventListener('offline', onOffline);
  };
}
