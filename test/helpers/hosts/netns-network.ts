import { alive } from '../wait.js';
import { IP, ip, ipQuiet } from './ip-command.js';
import type { HostLink, Network } from './network.js';

/**
 * Every namespace and link a bench makes is named for it and its process: `leob-<pid>-<host>`, `leob<pid>…`. A bench
 * whose process was killed before its clean-up ran is recognised by that at the next bench's start.
 */
const PREFIX = 'leob';
/** Each host has an address of its own, so every daemon listens on Leo's default port. */
const PORT = 8370;

/** Removes the namespaces and links of benches whose process is gone, ending the daemons it left in them. */
function sweepLeftovers(): void {
  for (const line of ip('netns', 'list').split('\n')) {
    const m = new RegExp(`^(${PREFIX}-(\\d+)-\\S+)`).exec(line);
    if (!m || alive(Number(m[2]))) continue;
    for (const pid of ip('netns', 'pids', m[1]!).split('\n').filter(Boolean)) process.kill(Number(pid), 'SIGKILL');
    ipQuiet('netns', 'del', m[1]!);
  }
  for (const line of ip('-o', 'link', 'show').split('\n')) {
    const m = new RegExp(`^\\d+: (${PREFIX}(\\d+)[a-z0-9]*)[@:]`).exec(line);
    if (m && !alive(Number(m[2]))) ipQuiet('link', 'del', m[1]!);
  }
}

/** A 10.231.N.0/24 that no interface or route here uses yet, N from the pid so that two benches rarely race. */
function freeSubnet(): string {
  const used = ip('-4', '-o', 'addr', 'show') + ip('-4', 'route', 'show');
  for (let i = 0; i < 254; i++) {
    const prefix = `10.231.${((process.pid + i) % 254) + 1}.`;
    if (!used.includes(prefix)) return prefix;
  }
  throw new Error('no free 10.231.N.0/24 subnet for the bench');
}

/**
 * A bridge in this process's namespace (so the test reaches every host, and every host reaches the test's fault
 * proxies at the bridge's address), and per host a namespace with `lo` up and a veth on the bridge. A link down is its
 * bridge-side end set down: the host keeps its address, and packets to it are dropped. Throws when namespaces cannot
 * be made here (no CAP_NET_ADMIN): the caller falls back to loopback.
 */
export function openNetnsNetwork(): Network {
  sweepLeftovers();
  const bridge = `${PREFIX}${process.pid}`;
  const subnet = freeSubnet();
  const gateway = `${subnet}1`;
  const namespaces: string[] = [];
  const veths: string[] = [];
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    process.off('exit', close);
    for (const veth of veths) ipQuiet('link', 'del', veth);
    for (const ns of namespaces) ipQuiet('netns', 'del', ns);
    ipQuiet('link', 'del', bridge);
  };
  process.on('exit', close);
  try {
    ip('link', 'add', bridge, 'type', 'bridge');
    ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
  } catch (err) {
    close();
    throw err;
  }
  return {
    kind: 'netns',
    note: `hosts in network namespaces on ${subnet}0/24`,
    gateway,
    async addHost(name): Promise<HostLink> {
      const n = namespaces.length + 2;
      const ns = `${PREFIX}-${process.pid}-${name}`;
      const veth = `${bridge}v${n}`;
      const peer = `${bridge}p${n}`;
      const address = `${subnet}${n}`;
      ip('netns', 'add', ns);
      namespaces.push(ns);
      ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', peer);
      veths.push(veth);
      ip('link', 'set', peer, 'netns', ns);
      ip('-n', ns, 'link', 'set', peer, 'name', 'eth0');
      ip('-n', ns, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      ip('-n', ns, 'link', 'set', 'lo', 'up');
      ip('-n', ns, 'link', 'set', 'eth0', 'up');
      ip('link', 'set', veth, 'master', bridge, 'up');
      return {
        name,
        listen: `${address}:${PORT}`,
        url: `http://${address}:${PORT}`,
        allowedHosts: [address, gateway],
        exec: [IP, 'netns', 'exec', ns],
        down: () => void ip('link', 'set', veth, 'down'),
        up: () => void ip('link', 'set', veth, 'up'),
      };
    },
    close,
  };
}
