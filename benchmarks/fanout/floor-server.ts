/**
 * The fan-out benchmark's floor: the least a node:http server can do to fan events out over SSE. `GET /events`
 * subscribes, `POST /publish` writes the body as one `task_run_started` frame to every subscriber with `res.write`,
 * with no queue bound, no coalescing and no auth, so anything Leo spends above it is the price of what Leo adds.
 * Prints `{"port": …}` on stdout once listening on a loopback port. Started by fanout.ts.
 */
import http from 'node:http';

const subscribers = new Set<http.ServerResponse>();

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/events') {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
    });
    // As Leo does: a frame goes out when written, not when Nagle's algorithm has gathered enough of them.
    res.socket?.setNoDelay(true);
    res.write(': hello\n\n');
    subscribers.add(res);
    res.on('close', () => subscribers.delete(res));
    return;
  }
  if (req.method === 'POST' && req.url === '/publish') {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const frame = `event: task_run_started\ndata: ${Buffer.concat(chunks).toString()}\n\n`;
      for (const s of subscribers) s.write(frame);
      res.writeHead(204).end();
    });
    return;
  }
  res.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
process.on('SIGTERM', () => process.exit(0));
