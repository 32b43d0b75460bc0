/**
 * The three servers the fan-out benchmark compares, each started as a child process on a loopback port and able to
 * publish one event whose payload carries the marker the load generator times: Leo's daemon (published through the
 * socket-only task-run ingress, a real publish path), nginx with nchan, and the node:http floor.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { NCHAN_MODULE, NGINX_BIN } from './nchan-setup.js';
import { childPids, exited, FD_LIMIT, freePort, sleep, spawnWithFdLimit, tail } from './proc.js';
import { marker, sharedNowMs } from './protocol.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
/** dist/benchmarks/fanout → the repository root. */
const LEO_BIN = path.resolve(HERE, '../../../bin/leo.js');
const STARTUP_MS = 30_000;
/** Publishes in flight at once: enough that a round trip never paces the publisher below 1 000 events/s. */
const PUBLISH_SOCKETS = 16;

export type TargetName = 'leo' | 'nchan' | 'floor';

export interface Target {
  readonly name: TargetName;
  readonly pid: number;
  /** The processes whose CPU and memory count as the server's (nginx: master and workers). */
  pids(): number[];
  readonly subscribe: { host: string; port: number; path: string; headers: Record<string, string> };
  /** Publishes event `seq`, stamped now; resolves true once the server accepted it. */
  publish(seq: number, pad?: string): Promise<boolean>;
  /** Prometheus text, where the server has it (Leo's /metrics). */
  metrics?(): Promise<string>;
  /** Stops the server and removes its folder; resolves once the process is gone. */
  stop(): Promise<void>;
  /** Synchronous last resort for the exit handler. */
  kill(): void;
}

/**
 * The payload as Leo's bus would put it in a task_run_started frame's `data:` line, so nchan and the floor send
 * (nearly) the same bytes as Leo does; Leo itself is sent the ingress body and builds this itself.
 */
function frameData(seq: number, pad: string): string {
  const now = new Date().toISOString();
  return JSON.stringify({
    seq,
    at: now,
    run: {
      id: `bench-${seq}`,
      task: 'fanout',
      status: 'running',
      started_at: now,
      error: null,
      workspace: marker(seq, sharedNowMs(), pad),
      model: '',
      harness: '',
      ended_at: null,
    },
  });
}

function post(agent: http.Agent, opts: http.RequestOptions, body: string, okStatus: (s: number) => boolean) {
  return new Promise<boolean>((resolve) => {
    const req = http.request(
      {
        ...opts,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(okStatus(res.statusCode ?? 0)));
        res.on('error', () => resolve(false));
      },
    );
    req.on('error', () => resolve(false));
    req.end(body);
  });
}

function httpGet(opts: http.RequestOptions): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ ...opts, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.setTimeout(2000, () => req.destroy(new Error('timeout')));
  });
}

async function waitUntil(what: string, child: ChildProcess, log: () => string, ok: () => Promise<boolean>) {
  const deadline = Date.now() + STARTUP_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) while starting:\n${log()}`);
    if (await ok().catch(() => false)) return;
    await sleep(100);
  }
  throw new Error(`${what} did not come up within ${STARTUP_MS / 1000} s:\n${log()}`);
}

async function stopChild(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  if ((await exited(child, 10_000)) === null && child.exitCode === null) {
    child.kill('SIGKILL');
    await exited(child, 5_000);
  }
}

function killChild(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
}

export interface LeoOptions {
  /** web.sse_queue; omitted = Leo's default (1024), as the storm check wants. */
  sseQueue?: number;
  /** Where the daemon writes a V8 CPU profile when it exits (node --cpu-prof). */
  cpuProfDir?: string;
}

/** A real `leo daemon` in a throwaway LEO_HOME, as the tests' spawnDaemon runs it. */
export async function startLeo(opts: LeoOptions = {}): Promise<Target & { home: string }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-bench-fanout-'));
  const port = await freePort();
  // A fixed port, because at log level warn the "leo daemon ready" line that reports an ephemeral one is not logged.
  // The fan-out sizes are far past the default connection and stream caps, which are lifted here.
  const caps =
    '  max_connections: 60000\n  max_connections_per_token: 60000\n  sse_max_subscribers: 60000\n  sse_max_per_token: 60000\n';
  const web = `web:\n  listen: 127.0.0.1:${port}\n${caps}${opts.sseQueue ? `  sse_queue: ${opts.sseQueue}\n` : ''}`;
  fs.writeFileSync(path.join(home, 'leo.yaml'), `${web}log:\n  level: warn\npool:\n  threads: 1\n`);
  const nodeArgs = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfDir}`] : [];
  const child = spawnWithFdLimit(process.execPath, [...nodeArgs, LEO_BIN, 'daemon'], {
    env: { ...process.env, LEO_HOME: home, LEO_USER_HOME: home },
  });
  child.stdout!.resume();
  const log = tail(child);
  const cleanupHome = () => {
    spawnSync('tmux', ['-S', path.join(home, 'state', 'tmux.sock'), 'kill-server'], { stdio: 'ignore' });
    fs.rmSync(home, { recursive: true, force: true });
  };
  try {
    await waitUntil('leo daemon', child, log, async () => {
      const r = await httpGet({ host: '127.0.0.1', port, path: '/health' });
      return r.status === 200 && (JSON.parse(r.body) as { data: { ready: boolean } }).data.ready;
    });
  } catch (err) {
    killChild(child);
    cleanupHome();
    throw err;
  }
  const token = fs.readFileSync(path.join(home, 'state', 'api.token'), 'utf8').trim();
  const socketPath = path.join(home, 'state', 'leo.sock');
  // Node's agent keys its pool by socket path too, so these are kept-alive unix-socket connections.
  const agent = new http.Agent({ keepAlive: true, maxSockets: PUBLISH_SOCKETS });
  return {
    name: 'leo',
    home,
    pid: child.pid!,
    pids: () => [child.pid!],
    subscribe: { host: '127.0.0.1', port, path: '/api/v1/events', headers: { authorization: `Bearer ${token}` } },
    publish(seq, pad = '') {
      const startedAt = new Date().toISOString();
      const body = JSON.stringify({
        type: 'task_run_started',
        run: { id: `bench-${seq}`, task: 'fanout', started_at: startedAt, workspace: marker(seq, sharedNowMs(), pad) },
      });
      return post(agent, { socketPath, path: '/observe/task-run' }, body, (s) => s === 200);
    },
    async metrics() {
      const r = await httpGet({
        host: '127.0.0.1',
        port,
        path: '/metrics',
        headers: { authorization: `Bearer ${token}` },
      });
      return r.body;
    },
    async stop() {
      agent.destroy();
      await stopChild(child, 'SIGTERM');
      cleanupHome();
    },
    kill() {
      agent.destroy();
      killChild(child);
      cleanupHome();
    },
  };
}

/** The soft limit nginx may raise its worker to: the hard one, when that is below FD_LIMIT (containers). */
function fdHardLimit(): number {
  const r = spawnSync('sh', ['-c', 'ulimit -Hn'], { encoding: 'utf8' });
  const n = Number(r.stdout.trim());
  return Number.isInteger(n) && n > 0 ? Math.min(n, FD_LIMIT) : FD_LIMIT;
}

export const NGINX_WORKERS = 1;

/** nginx with nchan from a generated config in a temp folder, in the foreground (daemon off) as our child. */
export async function startNchan(): Promise<Target & { dir: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-bench-nchan-'));
  const port = await freePort();
  const fds = fdHardLimit();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const conf = `# Generated by benchmarks/fanout; removed with its folder when the run ends.
load_module ${NCHAN_MODULE};
${isRoot ? '# As root nginx would switch its workers to "nobody", who cannot enter this 0700 folder.\nuser root root;' : ''}
# One worker, to compare with Leo's single-threaded event loop rather than with all cores.
worker_processes ${NGINX_WORKERS};
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
worker_rlimit_nofile ${fds};
events { worker_connections ${fds - 100}; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # The publisher's kept-alive connections must not be closed every thousand requests.
  keepalive_requests 10000000;
  keepalive_timeout 300s;
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location = /ping { return 204; }
    location = /pub {
      nchan_publisher;
      nchan_channel_id fanout;
      # Like Leo's bus, keep nothing to replay: an event goes to whoever is subscribed when it is published.
      nchan_store_messages off;
    }
    location = /sub {
      nchan_subscriber eventsource;
      nchan_channel_id fanout;
      nchan_eventsource_event task_run_started;
    }
  }
}
`;
  const confPath = path.join(dir, 'nginx.conf');
  fs.writeFileSync(confPath, conf);
  const child = spawnWithFdLimit(NGINX_BIN, ['-p', dir, '-e', path.join(dir, 'error.log'), '-c', confPath]);
  child.stdout!.resume();
  const stderr = tail(child);
  const log = () => {
    let e = '';
    try {
      e = fs.readFileSync(path.join(dir, 'error.log'), 'utf8').slice(-4000);
    } catch {
      // not written yet
    }
    return stderr() + e;
  };
  try {
    await waitUntil('nginx', child, log, async () => {
      const r = await httpGet({ host: '127.0.0.1', port, path: '/ping' });
      return r.status === 204;
    });
  } catch (err) {
    killChild(child);
    fs.rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const agent = new http.Agent({ keepAlive: true, maxSockets: PUBLISH_SOCKETS });
  const master = child.pid!;
  let workers = childPids(master);
  return {
    name: 'nchan',
    dir,
    pid: master,
    pids() {
      // Re-read only if a worker went away: a respawned worker has a new pid.
      if (workers.length < NGINX_WORKERS || workers.some((w) => !fs.existsSync(`/proc/${w}`)))
        workers = childPids(master);
      return [master, ...workers];
    },
    subscribe: { host: '127.0.0.1', port, path: '/sub', headers: {} },
    publish(seq, pad = '') {
      return post(agent, { host: '127.0.0.1', port, path: '/pub' }, frameData(seq, pad), (s) => s === 201 || s === 202);
    },
    async stop() {
      agent.destroy();
      // SIGTERM is nginx's fast shutdown: workers close their connections instead of waiting for them.
      await stopChild(child, 'SIGTERM');
      fs.rmSync(dir, { recursive: true, force: true });
    },
    kill() {
      agent.destroy();
      for (const w of workers) {
        try {
          process.kill(w, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      killChild(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function startFloor(): Promise<Target> {
  const child = spawnWithFdLimit(process.execPath, [path.join(HERE, 'floor-server.js')]);
  const log = tail(child);
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`floor server did not start:\n${log()}`)), STARTUP_MS);
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /\{"port":(\d+)\}/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`floor server exited (${code}):\n${log()}`));
    });
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: PUBLISH_SOCKETS });
  return {
    name: 'floor',
    pid: child.pid!,
    pids: () => [child.pid!],
    subscribe: { host: '127.0.0.1', port, path: '/events', headers: {} },
    publish(seq, pad = '') {
      return post(agent, { host: '127.0.0.1', port, path: '/publish' }, frameData(seq, pad), (s) => s === 204);
    },
    async stop() {
      agent.destroy();
      await stopChild(child, 'SIGTERM');
    },
    kill() {
      agent.destroy();
      killChild(child);
    },
  };
}
