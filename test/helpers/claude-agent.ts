// One real Claude Code agent run by an in-process test daemon against the scripted API server: the set-up and
// tear-down every end-to-end Claude test shares, and the views of its pane, transcript and chat thread they read.
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { AnthropicServer, type ReplyScript } from './anthropic-server.js';
import { claudeSandbox, claudeTemplateConfig, findClaude, type ClaudeSandbox } from './claude-cli.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { request } from './http.js';
import { alive, until } from './wait.js';

export const MODEL = 'claude-sonnet-4-5';

export interface ChatMessage {
  id: string;
  direction: 'in' | 'out';
  kind: string;
  text: string;
  state: string;
  reply_to?: string;
  note?: string;
  answer?: { values: string[]; text: string; answers?: Record<string, { values: string[]; text: string }> };
  permission?: { tool: string; summary: string };
  input?: any;
  closed_reason?: string;
}

export interface ClaudeAgent {
  d: TestDaemon;
  api: AnthropicServer;
  sandbox: ClaudeSandbox;
  version: string;
  token: string;
  tmux(...args: string[]): SpawnSyncReturns<string>;
  pane(): string;
  /** Claude's transcript lines that include `marker`, parsed. */
  transcriptLines(marker: string): any[];
  thread(): Promise<ChatMessage[]>;
  send(text: string): Promise<ChatMessage>;
  delivered(id: string): Promise<ChatMessage>;
  /** Fails with the pane attached, which is what tells why Claude did not do something. */
  withPane<T>(p: Promise<T>): Promise<T>;
}

/**
 * Starts the scripted API, a daemon configured with a claude template `coder` (plus `extraConfig` YAML) and spawns
 * `agent` from it, waiting for Claude's input prompt. Null (the test skipped, saying why) when the pinned claude is
 * not installed. Everything is torn down after the test; `beforeSpawn` runs once the daemon is up.
 */
export async function startClaudeAgent(
  t: TestContext,
  opts: {
    agent: string;
    script: ReplyScript;
    extraConfig?: string;
    /** Extra lines for leo.yaml's web section, indented two spaces. */
    web?: string;
    beforeSpawn?(d: TestDaemon): Promise<void>;
  },
): Promise<ClaudeAgent | null> {
  const claude = await findClaude();
  if ('missing' in claude) {
    t.skip(claude.missing);
    return null;
  }
  const { agent } = opts;
  const api = await AnthropicServer.start({ script: opts.script });
  const sandbox = claudeSandbox({ baseUrl: api.url });
  const config = claudeTemplateConfig(claude.bin, sandbox, MODEL) + (opts.extraConfig ?? '');
  // Reply capture compares delivery times with the transcript's real times; the ManualClock starts at real now.
  const d = await startTestDaemon({ config, ...(opts.web ? { web: opts.web } : {}) });
  const token = d.daemon.operatorToken;
  const sock = path.join(d.home, 'state', 'tmux.sock');
  const tmux = (...args: string[]) => spawnSync('tmux', ['-S', sock, ...args], { encoding: 'utf8' });
  const pane = () => tmux('capture-pane', '-p', '-t', `=leo-${agent}:`).stdout ?? '';
  t.after(async () => {
    const pid = Number(tmux('display-message', '-p', '-t', `=leo-${agent}:`, '#{pane_pid}').stdout.trim());
    await d.stop();
    // Claude saves its state as it exits on the hangup; removing the sandbox under it would leave strays behind.
    if (pid > 0) await until('claude to exit', () => !alive(pid), 10_000).catch(() => undefined);
    await api.close();
    sandbox.cleanup();
  });
  const withPane = <T>(p: Promise<T>) =>
    p.catch((err) => {
      throw new Error(`${(err as Error).message}; pane:\n${pane()}`);
    });
  const thread = async (): Promise<ChatMessage[]> => {
    const r = await request(d.tcp, 'GET', `/api/v1/chat/${agent}/messages?limit=200`, { token });
    assert.equal(r.status, 200, r.text);
    return r.json.data.messages;
  };
  const transcriptDir = path.join(sandbox.configDir, 'projects');
  const transcriptLines = (marker: string) => {
    const out: any[] = [];
    for (const f of fs.existsSync(transcriptDir) ? fs.readdirSync(transcriptDir, { recursive: true }) : []) {
      if (!String(f).endsWith('.jsonl')) continue;
      for (const line of fs.readFileSync(path.join(transcriptDir, String(f)), 'utf8').split('\n'))
        if (line.includes(marker)) out.push(JSON.parse(line));
    }
    return out;
  };

  await opts.beforeSpawn?.(d);
  const spawned = await request(d.tcp, 'POST', '/api/v1/agents/spawn', {
    token,
    body: { template: 'coder', name: agent },
  });
  assert.equal(spawned.status, 201, spawned.text);
  assert.equal(spawned.json.data.harness, 'claude');
  // Claude's input prompt: onboarding, trust and API-key dialogs were all skipped by the seed.
  await withPane(until('claude to show its prompt', () => pane().includes('for shortcuts'), 30_000));

  return {
    d,
    api,
    sandbox,
    version: claude.version,
    token,
    tmux,
    pane,
    transcriptLines,
    thread,
    withPane,
    async send(text) {
      const r = await request(d.tcp, 'POST', `/api/v1/chat/${agent}/messages`, { token, body: { text } });
      assert.equal(r.status, 201, r.text);
      return r.json.data;
    },
    delivered: (id) =>
      until(
        `message ${id} to be delivered`,
        async () => {
          const m = (await thread()).find((x) => x.id === id);
          if (m?.state === 'failed') throw new Error(`delivery failed: ${m.note}; pane:\n${pane()}`);
          return m?.state === 'delivered' ? m : undefined;
        },
        15_000,
        200,
      ),
  };
}
