/** The events a turn streams (agent-chat-endpoint.md, SSE Streaming Mode). */
export type StreamEventName =
  'inference.chunk' | 'inference.tool' | 'thinking.chunk' | 'tool.chunk' | 'message' | 'done' | 'error';

export interface StreamEvent {
  sessionId: string;
  event: StreamEventName | 'session.budget_exceeded';
  data: unknown;
}

type Listener = (e: StreamEvent) => void;

/**
 * Live fan-out of every turn's events, whatever its mode: the SSE response of the call itself, any
 * `GET /sessions/:id/stream` listener, and every `/ws` client (which listens to all sessions). Synchronous and
 * in-memory: nothing is replayed, a late listener sees only what comes after it.
 */
export class SessionStreams {
  private readonly bySession = new Map<string, Set<Listener>>();
  private readonly all = new Set<Listener>();

  /** Listens to one session, or to all of them with `'*'`; returns the unsubscribe. */
  subscribe(sessionId: string | '*', fn: Listener): () => void {
    if (sessionId === '*') {
      this.all.add(fn);
      return () => this.all.delete(fn);
    }
    let set = this.bySession.get(sessionId);
    if (!set) this.bySession.set(sessionId, (set = new Set()));
    set.add(fn);
    return () => {
      set.delete(fn);
      if (set.size === 0) this.bySession.delete(sessionId);
    };
  }

  publish(e: StreamEvent): void {
    for (const fn of [...(this.bySession.get(e.sessionId) ?? []), ...this.all]) {
      try {
        fn(e);
      } catch {
        // A listener that throws (a socket gone bad) must not stop the turn or the other listeners.
      }
    }
  }

  get listeners(): number {
    let n = this.all.size;
    for (const s of this.bySession.values()) n += s.size;
    return n;
  }
}
