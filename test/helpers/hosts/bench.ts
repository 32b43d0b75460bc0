import { HostEntry, HostInvite } from '../../../src/wire/host.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';
import { HostDaemon, type HostConfig } from './host-daemon.js';
import type { Network } from './network.js';
import { openNetwork } from './open-network.js';

/**
 * Several machines on one: real daemons each on a host of its own network (`open-network.ts`), fault proxies between
 * them, and the pairing of a hub with a host done as the owner does it. `close()` removes all of it; a test process
 * that dies first leaves namespaces the next bench removes.
 *
 *   const bench = HostBench.open(); // t.diagnostic(bench.network.note): namespaces or loopback, and why
 *   const [hub, box] = await Promise.all([bench.host('hub'), bench.host('box', 'templates: …\n')]);
 *   await bench.pair(hub, box); // the hub follows box at box.url
 *   const slow = await bench.proxy(box);
 *   await bench.pair(hub, box, { as: 'box-slow', via: slow });
 *   slow.set({ delayMs: 20, loss: 0.05 }); // or mode: { kind: 'blackhole' } / { kind: 'half-response', bytes: 300 }
 *   box.link.down(); box.link.up(); // on loopback: a blackhole in front of box
 *   await box.kill(); await box.start(); // SIGKILL, then the same home, address and host_id
 *   await hub.op('GET', '/api/v1/hosts'); // the unix socket: no token, and no link fault cuts it
 *   await bench.close();
 */
export class HostBench {
  private readonly hosts: HostDaemon[] = [];
  private readonly proxies: FaultProxy[] = [];

  private constructor(readonly network: Network) {}

  static open(): HostBench {
    return new HostBench(openNetwork());
  }

  /** A new host with its daemon started; `config`: more top-level leo.yaml sections (see HostDaemon). */
  async host(name: string, config: HostConfig = ''): Promise<HostDaemon> {
    const host = new HostDaemon(await this.network.addHost(name), config);
    this.hosts.push(host);
    await host.start();
    return host;
  }

  /** A fault proxy in front of `host`, listening where every host reaches it. */
  async proxy(host: HostDaemon): Promise<FaultProxy> {
    const url = new URL(host.url);
    const proxy = await startFaultProxy(this.network.gateway, { host: url.hostname, port: Number(url.port) });
    this.proxies.push(proxy);
    return proxy;
  }

  /**
   * Pairs `hub` with `host` as the owner would: a join link from the host (`leo host invite <hub>`), redeemed on the
   * hub (`leo host add <as> <link>`). `via`: the hub reaches the host through that proxy instead.
   */
  async pair(hub: HostDaemon, host: HostDaemon, opts: { as?: string; via?: FaultProxy } = {}): Promise<HostEntry> {
    // The host knows the hub as a peer of that name: a second pairing of the same two takes the name it is given.
    const peer = opts.as ? `${hub.name}-${opts.as}` : hub.name;
    const invited = await host.op('POST', '/api/v1/host/invites', { hub: peer, url: (opts.via ?? host).url });
    if (invited.status !== 201) throw new Error(`invite on ${host.name}: ${invited.status} ${invited.text}`);
    const { link } = HostInvite.parse(invited.json.data);
    const added = await hub.op('POST', '/api/v1/hosts', { name: opts.as ?? host.name, link });
    if (added.status !== 201) throw new Error(`host add on ${hub.name}: ${added.status} ${added.text}`);
    return HostEntry.parse(added.json.data);
  }

  async close(): Promise<void> {
    await Promise.all(this.proxies.map((p) => p.close()));
    await Promise.all(this.hosts.map((h) => h.stop()));
    this.network.close();
  }
}
