/**
 * The hosts a hub follows in the fan-in benchmark, as one child process (so their work never shares the hub's event
 * loop): each a small HTTP server speaking the part of Leo's API a hub reads — GET /api/v1/host, /api/v1/state with
 * `--agents` agents, and /api/v1/events (hello, then agent_activity events, a heartbeat comment every 5 s). Every
 * event carries its send time in `last_activity_at`, which the hub relays unchanged.
 *
 * Prints `{"ports":[…]}` once listening; then reads one JSON command per stdin line:
 *   {"rate": n}    n events a second in all, spread round-robin over the hosts and their agents
 *   {"hang": i}    host i stops writing to its streams and never answers a new request (a host hung mid-response)
 *   {"unhang": i}  host i answers again (its hung streams are dropped, so the hub reconnects)
 *   {"delay": ms}  every write to a stream and every answer is held back this long (a slower link)
 * Node builtins only; the hub's answers are not checked here.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import readline from 'node:readline';

const { values } = parseArgs({
  options: { hosts: { type: 'string', default: '10' }, agents: { type: 'string', default: '50' } },
});
const HOSTS = Number(values.hosts);
const AGENTS = Number(values.agents);
const BOOT = `bench-${process.pid}`;

interface Host {
  seq: number;
  streams: Set<http.ServerResponse>;
  hung: boolean;
}

let delayMs = 0;
const later = (fn: () => void) => (delayMs > 0 ? setTimeout(fn, delayMs) : fn());

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
    if (host.hung) return; // never answered: the hub's own deadline has to give up
    const json = (data: unknown) =>
      later(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, data }));
      });
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
      later(() => res.write(`event: hello\ndata: ${JSON.stringify(hello)}\n\n`));
      host.streams.add(res);
      res.on('close', () => host.streams.delete(res));
      return;
    }
    res.writeHead(404).end();
  });
}

const hosts: Host[] = Array.from({ length: HOSTS }, () => ({ seq: 0, streams: new Set(), hung: false }));
const servers = hosts.map((host, h) => serve(h, host));
await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve))));
console.log(JSON.stringify({ ports: servers.map((s) => (s.address() as { port: number }).port) }));

function send(h: number, a: number): void {
  const host = hosts[h]!;
  if (host.hung) return;
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
  for (const s of host.streams) later(() => s.write(frame));
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
  for (const host of hosts) if (!host.hung) for (const s of host.streams) later(() => s.write(': heartbeat\n\n'));
}, 5_000);

for await (const line of readline.createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line) as { rate?: number; hang?: number; unhang?: number; delay?: number };
  if (cmd.rate !== undefined) setRate(cmd.rate);
  if (cmd.hang !== undefined) hosts[cmd.hang]!.hung = true;
  if (cmd.unhang !== undefined) {
    const host = hosts[cmd.unhang]!;
    host.hung = false;
    for (const s of host.streams) s.destroy();
  }
  if (cmd.delay !== undefined) delayMs = cmd.delay;
  console.log(JSON.stringify({ ok: line }));
}
process.exit(0);
