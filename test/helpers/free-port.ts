import fs from 'node:fs';
import net from 'node:net';

/**
 * A loopback port free right now, so a daemon can be started twice on the same one (a restart clients can follow).
 * Picked below the kernel's ephemeral range: a port from listen(0) is one any outgoing connection of the busy
 * machine may take as its source port before the daemon binds it (CI saw EADDRINUSE that way).
 */
export async function freePort(): Promise<number> {
  const ephemeralLow = ephemeralRangeStart();
  const low = 10_000;
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = low + Math.floor(Math.random() * (ephemeralLow - low));
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port between ${low} and ${ephemeralLow}`);
}

function ephemeralRangeStart(): number {
  try {
    const first = Number(fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(first) && first > 11_000) return first;
  } catch {
    // Not Linux: the IANA dynamic range starts here.
  }
  return 32_768;
}

function bindable(port: number): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
