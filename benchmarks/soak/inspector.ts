/**
 * The daemon's V8 heap after a full garbage collection, read through its inspector: SIGUSR1 opens it on 127.0.0.1:9229
 * (Node's default), and the DevTools protocol asks for a collection and then the heap usage. Between collections the
 * heap holds garbage as well as what is live, so only a reading taken right after one can be compared with another.
 * Null when the inspector cannot be reached (the port is taken, or not Linux).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';

const PORT = 9229;

/** Node's own lines on stderr when its inspector opens and closes: not the daemon's log. */
export const INSPECTOR_NOISE =
  /^(Debugger listening on ws:|For help, see: https:\/\/nodejs\.org\/en\/docs\/inspector|Debugger attached\.|Debugger ending on ws:|Waiting for the debugger to disconnect)/;

export class HeapInspector {
  private nextId = 1;
  private readonly pending = new Map<number, (result: any) => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const msg = JSON.parse(String(raw)) as { id?: number; result?: unknown };
      if (msg.id !== undefined) this.pending.get(msg.id)?.(msg.result);
      this.pending.delete(msg.id ?? -1);
    });
  }

  static async open(pid: number): Promise<HeapInspector | null> {
    process.kill(pid, 'SIGUSR1');
    for (let i = 0; i < 50; i++) {
      await sleep(100);
      const list = await fetch(`http://127.0.0.1:${PORT}/json/list`)
        .then((r) => r.json() as Promise<{ webSocketDebuggerUrl: string }[]>)
        .catch(() => null);
      const url = list?.[0]?.webSocketDebuggerUrl;
      if (!url) continue;
      const ws = new WebSocket(url);
      const opened = await new Promise<boolean>((resolve) => {
        ws.once('open', () => resolve(true));
        ws.once('error', () => resolve(false));
      });
      if (!opened) return null;
      // Whoever else holds the port answers too: make sure this is the daemon.
      const inspector = new HeapInspector(ws);
      const r = await inspector.call<{ result: { value: unknown } }>('Runtime.evaluate', {
        expression: 'process.pid',
        returnByValue: true,
      });
      if (r.result.value === pid) return inspector;
      inspector.close();
      return null;
    }
    return null;
  }

  private call<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** MB of live heap, after a full collection. */
  async liveHeapMb(): Promise<number> {
    await this.call('HeapProfiler.collectGarbage');
    const usage = await this.call<{ usedSize: number }>('Runtime.getHeapUsage');
    return usage.usedSize / 2 ** 20;
  }

  close(): void {
    this.ws.close();
  }
}
