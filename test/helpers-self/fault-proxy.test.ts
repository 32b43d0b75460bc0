// The hosts bench's fault proxy (test/helpers/hosts/): its rules, then its sockets against a plain TCP server.
import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFaultProxy, type FaultProxy } from '../helpers/hosts/fault-proxy.js';
import { dueAt, NO_FAULTS, passable, RETRANSMIT_MS } from '../helpers/hosts/fault-rules.js';
import { until } from '../helpers/wait.js';

describe('fault rules', () => {
  it('forward lets everything through, blackhole nothing, either way', () => {
    assert.equal(passable(NO_FAULTS, 'to-host', 10, 0), 10);
    assert.equal(passable(NO_FAULTS, 'to-client', 10, 1_000), 10);
    const hole = { ...NO_FAULTS, mode: { kind: 'blackhole' as const } };
    assert.equal(passable(hole, 'to-host', 10, 0), 0);
    assert.equal(passable(hole, 'to-client', 10, 0), 0);
  });

  it('half a response: every request through, the answer up to its first N bytes per connection', () => {
    const half = { ...NO_FAULTS, mode: { kind: 'half-response' as const, bytes: 100 } };
    assert.equal(passable(half, 'to-host', 500, 500), 500);
    assert.equal(passable(half, 'to-client', 60, 0), 60);
    assert.equal(passable(half, 'to-client', 60, 60), 40);
    assert.equal(passable(half, 'to-client', 60, 100), 0);
  });

  it('a chunk is due after the delay, never before the one let through before it', () => {
    const never = () => 0.99;
    assert.equal(dueAt(1_000, { ...NO_FAULTS, delayMs: 20 }, 0, never), 1_020);
    assert.equal(dueAt(1_000, NO_FAULTS, 1_020, never), 1_020, 'a delay lowered meanwhile does not reorder the stream');
  });

  it('a lost chunk comes a retransmission later, the stream behind it too', () => {
    const lossy = { ...NO_FAULTS, delayMs: 20, loss: 0.1 };
    const lost = dueAt(1_000, lossy, 0, () => 0.05);
    assert.equal(lost, 1_020 + RETRANSMIT_MS);
    assert.equal(
      dueAt(1_001, lossy, lost, () => 0.5),
      lost,
    );
    assert.equal(
      dueAt(1_000, { ...lossy, loss: 0 }, 0, () => 0),
      1_020,
      'no loss, whatever the draw',
    );
  });
});

describe('fault proxy', () => {
  let server: net.Server;
  let proxy: FaultProxy;
  /** Every connection's bytes, answered by the server with `answer` once it has read `ask`. */
  const ask = 'ask\n';
  const answer = 'x'.repeat(1_000);

  before(async () => {
    server = net.createServer((s) => {
      let got = '';
      s.on('data', (b) => {
        got += b.toString();
        if (got === ask) s.end(answer);
      });
      s.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = await startFaultProxy('127.0.0.1', { host: '127.0.0.1', port: (server.address() as net.AddressInfo).port });
  });
  after(async () => {
    await proxy.close();
    server.close();
  });

  /** A client of the proxy that sends `ask` and keeps what comes back, and whether the stream ended or failed. */
  const client = async () => {
    const s = net.connect(Number(new URL(proxy.url).port), '127.0.0.1');
    const seen = { text: '', ended: false, error: '' };
    s.on('data', (b) => (seen.text += b.toString()));
    s.on('end', () => (seen.ended = true));
    s.on('error', (err: NodeJS.ErrnoException) => (seen.error = err.code ?? err.message));
    await new Promise((resolve) => s.once('connect', resolve));
    s.write(ask);
    return { s, seen };
  };

  it('forwards both ways, each chunk after the added delay', async () => {
    proxy.set({ delayMs: 30 });
    const started = performance.now();
    const { seen } = await client();
    await until('the whole answer and its end', () => seen.ended, 5_000, 5);
    assert.ok(performance.now() - started >= 60, 'the ask and the answer were each delayed');
    assert.equal(seen.text, answer);
    proxy.set({ delayMs: 0 });
  });

  it('a blackhole accepts and answers nothing; lifted, what it held crosses', async () => {
    proxy.set({ mode: { kind: 'blackhole' } });
    const { seen } = await client();
    await sleep(200);
    assert.deepEqual(seen, { text: '', ended: false, error: '' });
    proxy.set({ mode: { kind: 'forward' } });
    await until('the held answer', () => seen.ended, 5_000, 10);
    assert.equal(seen.text, answer);
  });

  it('half a response: the first N bytes of the answer, then it hangs until the mode changes', async () => {
    proxy.set({ mode: { kind: 'half-response', bytes: 100 } });
    const { seen } = await client();
    await until('the first 100 bytes', () => seen.text.length === 100, 5_000, 10);
    await sleep(200);
    assert.equal(seen.text.length, 100);
    assert.equal(seen.ended, false);
    proxy.set({ mode: { kind: 'forward' } });
    await until('the rest', () => seen.ended, 5_000, 10);
    assert.equal(seen.text, answer);
  });

  it('with every chunk lost once, the answer comes whole, a retransmission late each way', async () => {
    proxy.set({ loss: 1 });
    const started = performance.now();
    const { seen } = await client();
    await until('the whole answer and its end', () => seen.ended, 5_000, 5);
    assert.ok(performance.now() - started >= 2 * RETRANSMIT_MS);
    assert.equal(seen.text, answer);
    proxy.set({ loss: 0 });
  });

  it('drops open connections with a reset', async () => {
    proxy.set({ mode: { kind: 'blackhole' } });
    const { s, seen } = await client();
    proxy.dropConnections();
    await until('the reset', () => s.destroyed, 5_000, 10);
    assert.equal(seen.error, 'ECONNRESET');
    proxy.set({ mode: { kind: 'forward' } });
  });
});
