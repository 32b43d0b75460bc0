import { freePort } from '../free-port.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import type { HostLink, Network } from './network.js';

/**
 * Where namespaces are not available: every daemon on its own port of 127.0.0.1, reached through a fault proxy of its
 * own that a link down turns into a blackhole. It cuts what is sent to the host, not what the host dials itself.
 */
export function openLoopbackNetwork(why: string): Network {
  const fronts: FaultProxy[] = [];
  return {
    kind: 'loopback',
    note: `hosts on loopback ports of 127.0.0.1 (no network namespaces: ${why})`,
    gateway: '127.0.0.1',
    async addHost(name): Promise<HostLink> {
      const port = await freePort();
      const front = await startFaultProxy('127.0.0.1', { host: '127.0.0.1', port });
      fronts.push(front);
      return {
        name,
        listen: `127.0.0.1:${port}`,
        url: front.url,
        allowedHosts: [],
        exec: [],
        down: () => front.set({ mode: { kind: 'blackhole' } }),
        up: () => front.set({ mode: { kind: 'forward' } }),
      };
    },
    close() {
      for (const front of fronts) void front.close();
    },
  };
}
