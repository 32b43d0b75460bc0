import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import { spawnDaemon, waitForExit } from '../cli.js';
import { request, type Response, type Target } from '../http.js';
import { makeTempHome } from '../temp-home.js';
import type { HostLink } from './network.js';

/** More top-level leo.yaml sections for a host, or a function of its home that answers them. */
export type HostConfig = string | ((home: string) => string);

/**
 * One host of a bench: the real `leo daemon` as a child process on its link (inside its namespace), with a LEO_HOME,
 * HOME and tmux server of its own in a temp folder. SIGKILLed and started again on the same home it is the same host:
 * same address, same host_id, same tokens.
 */
export class HostDaemon {
  readonly home: string;
  /** The unix socket: the test's own way in, which admits everything and no link fault cuts. */
  readonly socket: Target;
  private readonly env: NodeJS.ProcessEnv;
  private readonly removeHome: () => void;
  private child: ChildProcess | null = null;
  private output = () => '';

  /** `config`: more top-level leo.yaml sections, or what makes them from the host's home (files set up in it first). */
  constructor(
    readonly link: HostLink,
    config: HostConfig = '',
  ) {
    const allowed = link.allowedHosts.length > 0 ? `  allowed_hosts: [${link.allowedHosts.join(', ')}]\n` : '';
    const t = makeTempHome();
    const more = typeof config === 'string' ? config : config(t.home);
    // Info-level logs carry the "ready" line the start waits for.
    const yaml = `web:\n  listen: ${link.listen}\n${allowed}log:\n  level: info\npool:\n  threads: 1\n${more}`;
    fs.writeFileSync(path.join(t.home, 'leo.yaml'), yaml, { mode: 0o600 });
    this.home = t.home;
    this.env = { ...t.env, HOME: t.home, TMUX: '' };
    this.removeHome = t.cleanup;
    this.socket = { socketPath: path.join(t.home, 'state', 'leo.sock') };
  }

  get name(): string {
    return this.link.name;
  }

  /** Where the other hosts reach it. */
  get url(): string {
    return this.link.url;
  }

  /** Its TCP listener as the others reach it, for requests with a token (`request(host.tcp, …, { token })`). */
  get tcp(): Target {
    const url = new URL(this.url);
    return { host: url.hostname, port: Number(url.port) };
  }

  get operatorToken(): string {
    return fs.readFileSync(path.join(this.home, 'state', 'api.token'), 'utf8').trim();
  }

  /** Starts the daemon and resolves once it is ready; a daemon that fails to start throws with its output. */
  async start(): Promise<void> {
    if (this.child) throw new Error(`host ${this.name}: already running`);
    const started = await spawnDaemon(this.env, { prefix: this.link.exec });
    this.child = started.child;
    this.output = started.output;
  }

  /** SIGKILL: no clean-up runs, as when the machine loses power or the OOM killer strikes. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    child.kill('SIGKILL');
    await waitForExit(child);
  }

  /** A request over the unix socket, which needs no token (a JSON body when `body` is given). */
  op(method: string, p: string, body?: unknown): Promise<Response> {
    return request(this.socket, method, p, { body });
  }

  /** GET over the unix socket: the answer's `data` parsed by `schema` (a wire shape), or a throw. */
  async get<S extends z.ZodType>(p: string, schema: S): Promise<z.output<S>> {
    const r = await this.op('GET', p);
    if (r.status !== 200) throw new Error(`${this.name}: GET ${p} answered ${r.status}: ${r.text}`);
    return schema.parse(r.json.data);
  }

  /** The end of what the daemon (the last one started) has logged: for a failure's message. */
  logTail(chars = 6_000): string {
    return this.output().slice(-chars);
  }

  /** Kills the daemon and its tmux server and removes the home. */
  async stop(): Promise<void> {
    await this.kill();
    this.removeHome();
  }
}
