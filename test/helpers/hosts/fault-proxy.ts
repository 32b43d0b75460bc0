import net from 'node:net';
import { dueAt, NO_FAULTS, passable, type Direction, type Faults } from './fault-rules.js';

/** A TCP proxy in the test's process between a client (the hub) and one host, whose faults a test sets at any time. */
export interface FaultProxy {
  /** `http://<address>:<port>`: what the client dials instead of the host. */
  readonly url: string;
  /** Changes the faults; connections already open follow them (bytes held so far cross once allowed). */
  set(faults: Partial<Faults>): void;
  /** Resets every open connection, both sides, as a link dropping them would. */
  dropConnections(): void;
  close(): Promise<void>;
}

/** One way of one connection: bytes waiting for the faults to let them through, and those let through, due later. */
class Lane {
  private held = Buffer.alloc(0);
  private readonly due: { at: number; bytes: Buffer }[] = [];
  private lastDue = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;
  /** Bytes let through so far (what `half-response` counts of the host's answer). */
  private crossed = 0;

  constructor(
    private readonly direction: Direction,
    private readonly to: net.Socket,
    private readonly faults: () => Faults,
  ) {}

  push(bytes: Buffer): void {
    this.held = Buffer.concat([this.held, bytes]);
    this.pump();
  }

  /** The sender half-closed: the receiver is told once everything before has crossed. */
  end(): void {
    this.ended = true;
    this.pump();
  }

  pump(): void {
    const faults = this.faults();
    const n = this.passes(this.held.length);
    if (n > 0) {
      this.crossed += n;
      this.lastDue = dueAt(Date.now(), faults, this.lastDue, Math.random);
      this.due.push({ at: this.lastDue, bytes: this.held.subarray(0, n) });
      this.held = this.held.subarray(n);
    }
    this.flush();
  }

  private passes(bytes: number): number {
    return passable(this.faults(), this.direction, bytes, this.crossed);
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    while (this.due.length > 0 && this.due[0]!.at <= Date.now()) {
      const { bytes } = this.due.shift()!;
      if (!this.to.destroyed) this.to.write(bytes);
    }
    if (this.due.length > 0) this.timer = setTimeout(() => this.flush(), this.due[0]!.at - Date.now());
    // The end crosses like a byte would: a link that hangs does not pass on a close either.
    else if (this.ended && this.held.length === 0 && this.passes(1) && !this.to.destroyed) this.to.end();
  }
}

/**
 * Listens on `listen` (an address every host and the test can reach) and forwards each connection to `target`. The
 * sockets only: what crosses and when is `fault-rules.ts`.
 */
export async function startFaultProxy(listen: string, target: { host: string; port: number }): Promise<FaultProxy> {
  let faults: Faults = NO_FAULTS;
  const open = new Set<{ client: net.Socket; host: net.Socket; lanes: Lane[] }>();
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const host = net.connect({ ...target, allowHalfOpen: true });
    const lanes = [new Lane('to-host', host, () => faults), new Lane('to-client', client, () => faults)];
    const conn = { client, host, lanes };
    open.add(conn);
    const [toHost, toClient] = lanes as [Lane, Lane];
    client.on('data', (b: Buffer) => toHost.push(b));
    host.on('data', (b: Buffer) => toClient.push(b));
    client.on('end', () => toHost.end());
    host.on('end', () => toClient.end());
    // A reset or an error on either side ends both: the other side learns it as it would behind a real link.
    const gone = () => {
      if (!open.delete(conn)) return;
      for (const lane of lanes) lane.stop();
      client.destroy();
      host.destroy();
    };
    for (const s of [client, host]) {
      s.on('error', gone);
      s.on('close', () => {
        if (client.destroyed && host.destroyed) gone();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, listen, resolve);
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://${listen}:${port}`,
    set(change) {
      faults = { ...faults, ...change };
      for (const conn of open) for (const lane of conn.lanes) lane.pump();
    },
    dropConnections() {
      for (const conn of [...open]) {
        conn.client.resetAndDestroy();
        conn.host.resetAndDestroy();
      }
    },
    async close() {
      for (const conn of open) {
        for (const lane of conn.lanes) lane.stop();
        conn.client.destroy();
        conn.host.destroy();
      }
      open.clear();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
