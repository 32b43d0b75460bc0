/** The events a turn streams (agent-chat-endpoint.md, SSE Streaming Mode). */
export type StreamEventName =
  'inference.chunk' | 'inference.tool' | 'thinking.chunk' | 'tool.chunk' | 'message' | 'done' | 'error';

export interface StreamEvent {
  sessionId: string;
  /** The turn that produced it: a per-call SSE stream carries its own turn only. */
  turnId: string;
  event: StreamEventName | 'session.budget_exceeded';
  data: unknown;
}

type Listener = (e: StreamEvent) => void;

/**
 * Live fan-out of every turn's events, whatever its mode: the SSE response of the call itself (keyed by its turn id),
 * any `GET /sessions/:id/stream` listener (by session id), and every `/ws` client (which listens to all sessions).
 * Synchronous and in-memory: nothing is replayed, a late listener sees only what comes after it.
 */
export class SessionStreams {
  private readonly byKey = new Map<string, Set<Listener>>();
  private readonly all = new Set<Listener>();

  /** Listens to one session or one turn (by its id: `sess_…`, `turn_…`), or to all with `'*'`; returns the unsubscribe. */
  subscribe(key: string | '*', fn: Listener): () => void {
    if (key === '*') {
      this.all.add(fn);
      return () => this.all.delete(fn);
    }
    let set = this.byKey.get(key);
    if (!set) this.byKey.set(key, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.byKey.delete(key);
    };
  }

  publish(e: StreamEvent): void {
    for (const fn of [...(this.byKey.get(e.sessionId) ?? []), ...(this.byKey.get(e.turnId) ?? []), ...this.all]) {
      try {
        fn(e);
      } catch {
        // A listener that throws (a socket gone bad) must not stop the turn or the other listeners.
      }
    }
  }

  get listeners(): number {
    let n = this.all.size;
    for (const s of this.byKey.values()) n += s.size;
    return n;
  }
}
