import { z } from 'zod';
import type { Listed } from '../../chat/chat-routes.js';
import { Message, Thread } from '../../wire/message.js';
import type { HostStatus } from '../../wire/host.js';
import type { HostAddress, HostClient } from '../host-client.js';
import { mergeOpen, mergeThreads, type HostPart } from './merge-lists.js';

export interface HostListsDeps {
  /** client.hosts as leo.yaml says now. */
  hosts(): Record<string, HostAddress>;
  /** The peer token this hub holds for a host, or null. */
  token(host: string): string | null;
  connect(url: string, pin: string | undefined): HostClient;
  /** What the hub's follower says of the host now (null: not followed). An offline host is not asked. */
  status(host: string): HostStatus | null;
  /** How long one host may take to answer a list (LIST_DEADLINE_MS). */
  deadlineMs?: number;
}

/**
 * How long a hub waits for each host's list before answering without it: the app loads these at every (re)connect,
 * and one slow machine must not hold up the inbox of the others.
 */
const LIST_DEADLINE_MS = 2_000;

/**
 * The hub's lists across machines (issue 31): its own, merged with every followed host's, asked of all of them at once,
 * each under its own deadline. A host that does not answer in time is named in `missing`, and the list it answered
 * last (kept in memory) stands in for it; a host never heard from adds nothing.
 */
export class HostLists {
  /** host → path → the list it answered last. */
  private readonly known = new Map<string, Map<string, unknown[]>>();

  constructor(private readonly deps: HostListsDeps) {}

  async open(own: Message[]): Promise<Listed<Message>> {
    const { parts, missing } = await this.gather('/api/v1/chat/open', z.array(Message));
    return { items: mergeOpen(own, parts), missing };
  }

  async threads(own: Thread[]): Promise<Listed<Thread>> {
    const { parts, missing } = await this.gather('/api/v1/chat/threads', z.array(Thread));
    return { items: mergeThreads(own, parts), missing };
  }

  private async gather<T>(path: string, schema: z.ZodType<T[]>): Promise<{ parts: HostPart<T>[]; missing: string[] }> {
    const hosts = Object.entries(this.deps.hosts());
    for (const host of this.known.keys()) if (!hosts.some(([name]) => name === host)) this.known.delete(host);
    const missing: string[] = [];
    const parts = await Promise.all(
      hosts.map(async ([host, address]): Promise<HostPart<T>> => {
        const known = this.known.get(host) ?? new Map<string, unknown[]>();
        this.known.set(host, known);
        try {
          const items = await this.ask(host, address, path, schema);
          known.set(path, items);
          return { host, items };
        } catch {
          missing.push(host);
          return { host, items: (known.get(path) as T[] | undefined) ?? [] };
        }
      }),
    );
    return { parts, missing: missing.sort() };
  }

  private async ask<T>(host: string, { url, pin }: HostAddress, path: string, schema: z.ZodType<T[]>): Promise<T[]> {
    const token = this.deps.token(host);
    if (!token || this.deps.status(host) === 'offline') throw new Error(`${host} is not reachable now`);
    const signal = AbortSignal.timeout(this.deps.deadlineMs ?? LIST_DEADLINE_MS);
    return this.deps.connect(url, pin).read(token, path, schema, signal);
  }
}
