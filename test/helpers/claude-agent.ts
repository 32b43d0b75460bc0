// One real Claude Code agent run by an in-process test daemon against the scripted API server: the set-up and
// tear-down every end-to-end Claude test shares, and the views of its pane, transcript and chat thread they read.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { agentViews, type AgentViews } from './agent-views.js';
import { AnthropicServer, type ReplyScript } from './anthropic-server.js';
import { claudeSandbox, claudeTemplateConfig, findClaude, type ClaudeSandbox } from './claude-cli.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { request } from './http.js';
import { alive, until } from './wait.js';
import type { Logger } from '../../src/core/logger.js';

export const MODEL = 'claude-sonnet-4-5';

export type { ChatMessage } from './agent-views.js';

export interface ClaudeAgent extends AgentViews {
  d: TestDaemon;
  api: AnthropicServer;
  sandbox: ClaudeSandbox;
  version: string;
  token: string;
  /** Claude's transcript lines that include `marker`, parsed. */
  transcriptLines(marker: string): any[];
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
    /** Changes to the variables the agent's environment hands Claude (an empty value leaves one out). */
    env?: Record<string, string>;
    /** The daemon's logger (default: warnings only). */
    logger?: Logger;
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
  for (const [name, value] of Object.entries(opts.env ?? {}))
    if (value) sandbox.env[name] = value;
    else delete sandbox.env[name];
  const config = claudeTemplateConfig(claude.bin, sandbox, MODEL) + (opts.extraConfig ?? '');
  // Reply capture compares delivery times with the transcript's real times; the ManualClock starts at real now.
  const d = await startTestDaemon({
    config,
    ...(opts.web ? { web: opts.web } : {}),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const token = d.daemon.operatorToken;
  const views = agentViews(d, agent, token);
  const { pane, withPane } = views;
  t.after(async () => {
    const pid = views.panePid();
    await d.stop();
    // Claude saves its state as it exits on the hangup; removing the sandbox under it would leave strays behind.
    if (pid > 0) await until('claude to exit', () => !alive(pid), 10_000).catch(() => undefined);
    await api.close();
    sandbox.cleanup();
  });
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

  return { ...views, d, api, sandbox, version: claude.version, token, transcriptLines };
}
