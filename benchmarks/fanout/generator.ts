/**
 * The parent's side of the load generator (load-generator.ts): starts it as a process of its own, with a raised fd
 * limit, and exchanges the JSON lines of protocol.ts with it. Shared by the fan-out benchmark and the soak.
 */
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { spawnWithFdLimit, tail } from './proc.js';
import type { Command, Reply } from './protocol.js';
import type { Target } from './targets.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** The load generator process, and request/reply over its stdin/stdout JSON lines. */
export class Generator {
  readonly pid: number;
  private readonly waiters: { type: Reply['type']; resolve(r: Reply): void; reject(e: Error): void }[] = [];

  private constructor(private readonly child: ReturnType<typeof spawnWithFdLimit>) {
    this.pid = child.pid!;
    const log = tail(child);
    readline.createInterface({ input: child.stdout! }).on('line', (line) => {
      const r = JSON.parse(line) as Reply;
      if (r.type === 'error') {
        this.waiters.shift()?.reject(new Error(`load generator: ${r.message}`));
        return;
      }
      const i = this.waiters.findIndex((w) => w.type === r.type);
      if (i >= 0) this.waiters.splice(i, 1)[0]!.resolve(r);
    });
    child.once('exit', (code) => {
      for (const w of this.waiters.splice(0)) w.reject(new Error(`load generator exited (${code}):\n${log()}`));
    });
  }

  static async start(): Promise<Generator> {
    const g = new Generator(spawnWithFdLimit(process.execPath, [path.join(HERE, 'load-generator.js')]));
    await g.wait('ready');
    return g;
  }

  private wait<T extends Reply['type']>(type: T): Promise<Extract<Reply, { type: T }>> {
    return new Promise((resolve, reject) =>
      this.waiters.push({ type, resolve: resolve as (r: Reply) => void, reject }),
    );
  }

  request<T extends Reply['type']>(cmd: Command, type: T): Promise<Extract<Reply, { type: T }>> {
    const p = this.wait(type);
    this.child.stdin!.write(`${JSON.stringify(cmd)}\n`);
    return p;
  }

  async open(t: Target, group: string, n: number, stall = false): Promise<number> {
    const r = await this.request({ cmd: 'open', group, ...t.subscribe, count: n, stall }, 'opened');
    if (r.failed > 0) console.log(`  (${t.name}: ${r.failed} of ${n} subscribers failed to connect: ${r.error})`);
    return r.connected;
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}
