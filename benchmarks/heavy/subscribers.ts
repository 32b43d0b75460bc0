/**
 * The subscriber side of the heavy-work benchmark, a separate process so its own work never counts against the
 * daemon's event loop: holds N SSE connections to Leo's /api/v1/events, reads the `bench_tick` events the benchmark
 * publishes with their send time, and keeps each event's publish→receive latency per phase. Commands on stdin
 * (`phase <name>`, `report`, `exit`); reports as one JSON line on stdout.
 *
 *   node dist/benchmarks/heavy/subscribers.js <port> <token> <n>
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';

const [port, token, count] = [Number(process.argv[2]), process.argv[3] ?? '', Number(process.argv[4] ?? '1000')];
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const latencies = new Map<string, number[]>();
let phase = 'warmup';
let open = 0;
let ended = 0;

const now = () => performance.timeOrigin + performance.now();

function subscribe(): void {
  const req = http.get(
    { host: '127.0.0.1', port, path: '/api/v1/events', agent, headers: { authorization: `Bearer ${token}` } },
    (res) => {
      open++;
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buf += chunk;
        let i: number;
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const frame = buf.slice(0, i);
          buf = buf.slice(i + 2);
          if (!frame.startsWith('event: bench_tick')) continue;
          const sent = /"sent":([0-9.]+)/.exec(frame)?.[1];
          if (!sent) continue;
          let list = latencies.get(phase);
          if (!list) latencies.set(phase, (list = []));
          list.push(now() - Number(sent));
        }
      });
      res.on('end', () => ended++);
    },
  );
  req.on('error', () => ended++);
}

for (let i = 0; i < count; i++) subscribe();

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const [cmd, arg] = line.split(' ');
  if (cmd === 'phase') phase = arg ?? 'unnamed';
  if (cmd === 'report') {
    const out: Record<string, { n: number; p50: number; p99: number; max: number }> = {};
    for (const [name, list] of latencies) {
      const s = [...list].sort((a, b) => a - b);
      const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
      out[name] = { n: s.length, p50: at(0.5), p99: at(0.99), max: s.at(-1) ?? 0 };
    }
    process.stdout.write(JSON.stringify({ open, ended, phases: out }) + '\n');
  }
  if (cmd === 'exit') process.exit(0);
});
