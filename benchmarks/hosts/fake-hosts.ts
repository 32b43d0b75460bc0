/**
 * The hosts a hub follows in the fan-in benchmark, as one child process (so their work never shares the hub's event
 * loop): each a small HTTP server speaking the part of Leo's API a hub reads — GET /api/v1/host, /api/v1/state with
 * `--agents` agents, and /api/v1/events (hello, then agent_activity events, a heartbeat comment every 5 s). Every
 * event carries its send time in `last_activity_at`, which the hub relays unchanged. The hub reaches each host
 * through the test bench's fault proxy (test/helpers/hosts/fault-proxy.ts), run here too: a slower link or a host
 * hung mid-response is made on the wire, as the real-daemon benchmark (hop.ts) makes it.
 *
 * Prints `{"ports":[…]}` (the proxies') once listening; then reads one JSON command per stdin line:
 *   {"rate": n}                   n events a second in all, spread round-robin over the hosts and their agents
 *   {"faults": {…}, "host": i}    the faults of host i's proxy (every host's without "host"), as FaultProxy.set takes
 * The hub's answers are not checked here.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { startFaultProxy } from '../../test/helpers/hosts/fault-proxy.js';
import type { Faults } from '../../test/helpers/hosts/fault-rules.js';
import { int, options } from '../lib/options.js';

const o = options({ hosts: int(10), agents: int(50) });
const HOSTS = o.hosts;
const AGENTS = o.agents;
const BOOT = `bench-${process.pid}`;

interface Host {
  seq: number;
  streams: Set<http.ServerResponse>;
}

const agent = (h: number, a: number) => ({
  name: `a${a}`,
  display_name: `A${a}`,
  template: 'bench',
  repo: '/repo',
  workspace: `/repo/h${h}/a${a}`,
  branch: 'main',
  status: 'running',
  activity: 'idle',
  model: 'bench',
  harness: 'shell',
  restarts: 0,
  wake_on_message: false,
  started_at: new Date().toISOString(),
  last_activity_at: null,
  current_action: null,
  environments: [],
  environments_source: 'default',
  environment_error: null,
  stop_reason: null,
});

function serve(h: number, host: Host): http.Server {
  return http.createServer((req, res) => {
    const json = (data: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ok: true, data }));
    };
    if (req.url === '/api/v1/host')
      return json({
        host_id: `h${h}`,
        name: `h${h}`,
        version: 'bench',
        protocol: { major: 1, minor: 0 },
        features: [],
      });
    if (req.url === '/api/v1/state')
      return json({
        version: 1,
        server_time: new Date().toISOString(),
        seq: host.seq,
        leo_version: 'bench',
        agents: Array.from({ length: AGENTS }, (_, a) => agent(h, a)),
        tasks: [],
        recent_runs: [],
        recent_messages: [],
      });
    if (req.url === '/api/v1/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.socket?.setNoDelay(true);
      const hello = { seq: host.seq, at: new Date().toISOString(), boot_id: BOOT, features: [] };
      res.write(`event: hello\ndata: ${JSON.stringify(hello)}\n\n`);
      host.streams.add(res);
      res.on('close', () => host.streams.delete(res));
      return;
    }
    res.writeHead(404).end();
  });
}

const hosts: Host[] = Array.from({ length: HOSTS }, () => ({ seq: 0, streams: new Set() }));
const servers = hosts.map((host, h) => serve(h, host));
await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
const proxies = await Promise.all(
  servers.map((s) => startFaultProxy('127.0.0.1', { host: '127.0.0.1', port: (s.address() as { port: number }).port })),
);
console.log(JSON.stringify({ ports: proxies.map((p) => Number(new URL(p.url).port)) }));

function send(h: number, a: number): void {
  const host = hosts[h]!;
  host.seq++;
  const data = {
    seq: host.seq,
    at: new Date().toISOString(),
    agent: `a${a}`,
    activity: host.seq % 2 ? 'working' : 'idle',
    current_action: null,
    last_activity_at: new Date().toISOString(),
  };
  const frame = `event: agent_activity\ndata: ${JSON.stringify(data)}\n\n`;
  for (const s of host.streams) s.write(frame);
}

let ticker: NodeJS.Timeout | undefined;
let turn = 0;
function setRate(rate: number): void {
  if (ticker) clearInterval(ticker);
  ticker = undefined;
  if (rate <= 0) return;
  // Every 10 ms, as many as the rate owes since the start: a late tick sends more, so the rate holds under load.
  const start = performance.now();
  let sent = 0;
  ticker = setInterval(() => {
    const owed = Math.floor(((performance.now() - start) * rate) / 1000);
    for (; sent < owed; sent++, turn++) send(turn % HOSTS, Math.floor(turn / HOSTS) % AGENTS);
  }, 10);
}

setInterval(() => {
  for (const host of hosts) for (const s of host.streams) s.write(': heartbeat\n\n');
}, 5_000);

for await (const line of readline.createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line) as { rate?: number; faults?: Partial<Faults>; host?: number };
  if (cmd.rate !== undefined) setRate(cmd.rate);
  if (cmd.faults) for (const p of cmd.host === undefined ? proxies : [proxies[cmd.host]!]) p.set(cmd.faults);
  console.log(JSON.stringify({ ok: line }));
}
process.exit(0);
