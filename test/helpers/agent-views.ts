// What an end-to-end test reads and does with one agent of an in-process test daemon, whatever its harness: its pane
// on Leo's private tmux server, its chat thread, sending to it and waiting for a delivery.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import path from 'node:path';
import type { TestDaemon } from './daemon.js';
import type { Message } from '../../src/wire/message.js';
import { request } from './http.js';
import { until } from './wait.js';

export interface ChatMessage {
  id: string;
  direction: 'in' | 'out';
  kind: string;
  text: string;
  state: string;
  reply_to?: string;
  note?: string;
  answer?: { values: string[]; text: string; answers?: Record<string, { values: string[]; text: string }> };
  permission?: Message['permission'];
  input?: any;
  closed_reason?: string;
}

export interface AgentViews {
  tmux(...args: string[]): SpawnSyncReturns<string>;
  pane(): string;
  /** The pane's process (the harness CLI), or 0 when there is no pane. */
  panePid(): number;
  thread(): Promise<ChatMessage[]>;
  send(text: string): Promise<ChatMessage>;
  delivered(id: string): Promise<ChatMessage>;
  /** Fails with the pane attached, which is what tells why the agent did not do something. */
  withPane<T>(p: Promise<T>): Promise<T>;
}

export function agentViews(d: TestDaemon, agent: string, token: string): AgentViews {
  const sock = path.join(d.home, 'state', 'tmux.sock');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', sock, ...args], { encoding: 'utf8' });
  const pane = () => tmux('capture-pane', '-p', '-t', `=leo-${agent}:`).stdout ?? '';
  const thread = async (): Promise<ChatMessage[]> => {
    const r = await request(d.tcp, 'GET', `/api/v1/chat/${agent}/messages?limit=200`, { token });
    assert.equal(r.status, 200, r.text);
    return r.json.data.messages;
  };
  return {
    tmux,
    pane,
    panePid: () => Number(tmux('display-message', '-p', '-t', `=leo-${agent}:`, '#{pane_pid}').stdout.trim()) || 0,
    thread,
    withPane: (p) =>
      p.catch((err) => {
        throw new Error(`${(err as Error).message}; pane:\n${pane()}`);
      }),
    async send(text) {
      const r = await request(d.tcp, 'POST', `/api/v1/chat/${agent}/messages`, { token, body: { text } });
      assert.equal(r.status, 201, r.text);
      return r.json.data;
    },
    delivered: (id) =>
      until(
        `message ${id} to be delivered`,
        async () => {
          const messages = await thread();
          const m = messages.find((x) => x.id === id);
          if (m?.state === 'failed') {
            // The reason is the system message Leo posts in the thread when the message carries no note.
            const why = m.note ?? messages.filter((x) => x.kind === 'system').at(-1)?.text;
            throw new Error(`delivery failed: ${why}; pane:\n${pane()}`);
          }
          return m?.state === 'delivered' ? m : undefined;
        },
        15_000,
        200,
      ),
  };
}
