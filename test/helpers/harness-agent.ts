// One real Codex or opencode agent run by an in-process test daemon against its scripted model server (Codex: the
// Responses API, responses-server.ts; opencode: chat completions, openai-server.ts), with a sandboxed user config
// like a returning user's and a workspace the CLI has never seen: the set-up and tear-down their end-to-end tests
// share, and what the test reads back.
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { agentViews, type AgentViews } from './agent-views.js';
import { codexSandbox, codexTemplateConfig, findCodex } from './codex-cli.js';
import { startTestDaemon, type TestDaemon } from './daemon.js';
import { request } from './http.js';
import { OpenAiServer, type ReplyScript as ChatReplyScript } from './openai-server.js';
import { findOpencode, opencodeSandbox, opencodeTemplateConfig } from './opencode-cli.js';
import { ResponsesServer, type ReplyScript as ResponsesReplyScript } from './responses-server.js';
import { endProcessesIn } from './strays.js';
import { alive, until } from './wait.js';
import type { Logger } from '../../src/core/logger.js';

export const HARNESS_MODEL = 'gpt-test';

export type CliHarness = 'codex' | 'opencode';

/**
 * What each TUI shows once it takes input, measured on the pinned versions (codex 0.171.0, opencode 1.18.33). Codex
 * draws its composer and `? for shortcuts` at once, with `loading` where the folder goes; the footer gains the
 * model and the folder (`gpt-test default · /path`) and the `← for agents` hint only when its session is up. opencode
 * shows nothing for its first seconds (text typed then is echoed by the terminal and lost), then its prompt box with
 * `Ask anything…` and its key hints.
 */
export const READY_MARKERS: Record<CliHarness, readonly string[]> = {
  codex: ['← for agents'],
  opencode: ['Ask anything', 'ctrl+p commands'],
};

/** Whether `pane` shows `harness` ready for input (see READY_MARKERS). */
export function paneReady(harness: CliHarness, pane: string): boolean {
  return READY_MARKERS[harness].every((m) => pane.includes(m));
}

interface CommonOptions {
  agent: string;
  /** YAML appended to the generated leo.yaml. */
  extraConfig?: string;
  /** A workspace for the template; default: Leo's own (a folder the CLI has never seen). */
  workspace?: string;
  /** Runs once the daemon is up, before the spawn. */
  beforeSpawn?(d: TestDaemon): Promise<void>;
  /** Wait for the harness's ready markers after the spawn (default true). */
  waitForReady?: boolean;
  /** The spawn request's first prompt. */
  prompt?: string;
  /** The daemon's logger (default: warnings only). */
  logger?: Logger;
}

export type HarnessAgentOptions = CommonOptions &
  (
    | { harness: 'codex'; script?: ResponsesReplyScript; /** Appended to the user's config.toml. */ extraToml?: string }
    | {
        harness: 'opencode';
        script?: ChatReplyScript;
        /** More of the user's own opencode.json (for example `permission`). */
        userConfig?: Record<string, unknown>;
      }
  );

export interface HarnessAgent extends AgentViews {
  harness: CliHarness;
  agent: string;
  d: TestDaemon;
  version: string;
  token: string;
  /** The scripted model server; `prompts()` is what it saw typed, whichever wire protocol. */
  server: ResponsesServer | OpenAiServer;
  prompts(): string[];
  sandbox: { dir: string; env: Record<string, string> };
  /** Resolves once the pane shows the harness ready (READY_MARKERS), failing with the pane after `timeoutMs`. */
  ready(timeoutMs?: number): Promise<void>;
}

/**
 * Starts the harness's scripted model server, a daemon configured with a template `coder` for it (plus
 * `extraConfig`), and spawns `agent` from it through the API — then, unless told not to, waits for the TUI to be
 * ready. Null (the test skipped, saying why) when the pinned CLI is not installed. Everything is torn down after the
 * test.
 */
export async function startHarnessAgent(t: TestContext, opts: HarnessAgentOptions): Promise<HarnessAgent | null> {
  const found = opts.harness === 'codex' ? await findCodex() : await findOpencode();
  if ('missing' in found) {
    t.skip(found.missing);
    return null;
  }
  const { agent, harness } = opts;
  let server: ResponsesServer | OpenAiServer;
  let sandbox: { dir: string; env: Record<string, string>; cleanup(): void };
  let prompts: () => string[];
  let config: string;
  if (opts.harness === 'codex') {
    const api = await ResponsesServer.start({ script: opts.script });
    const box = codexSandbox({ baseUrl: api.baseUrl, model: HARNESS_MODEL, extraToml: opts.extraToml });
    [server, sandbox, prompts] = [api, box, () => api.prompts()];
    config = codexTemplateConfig(found.bin, box, HARNESS_MODEL, { workspace: opts.workspace });
  } else {
    const api = await OpenAiServer.start({ script: opts.script });
    const box = opencodeSandbox({
      baseUrl: api.baseUrl,
      model: HARNESS_MODEL,
      userConfig: opts.userConfig,
      userDeps: 'userDeps' in found && typeof found.userDeps === 'string' ? found.userDeps : null,
    });
    [server, sandbox, prompts] = [api, box, () => api.prompts()];
    config = opencodeTemplateConfig(found.bin, box, { workspace: opts.workspace });
  }
  const d = await startTestDaemon({
    config: config + (opts.extraConfig ?? ''),
    ...(opts.logger ? { logger: opts.logger } : {}),
  });
  const token = d.daemon.operatorToken;
  const views = agentViews(d, agent, token);
  t.after(async () => {
    const pid = views.panePid();
    try {
      await d.stop();
      // Both CLIs save their state as they exit on the hangup; removing the sandbox under them would leave strays.
      if (pid > 0) await until(`${harness} to exit`, () => !alive(pid), 10_000).catch(() => undefined);
    } finally {
      // A listening model server would keep the test file's process alive after a failed stop.
      await server.close();
      await endProcessesIn(sandbox.dir);
      sandbox.cleanup();
    }
  });
  const ready = async (timeoutMs = 30_000) => {
    await views.withPane(until(`${harness} to be ready for input`, () => paneReady(harness, views.pane()), timeoutMs));
  };

  await opts.beforeSpawn?.(d);
  const spawned = await request(d.tcp, 'POST', '/api/v1/agents/spawn', {
    token,
    body: { template: 'coder', name: agent, ...(opts.prompt ? { prompt: opts.prompt } : {}) },
  });
  assert.equal(spawned.status, 201, spawned.text);
  assert.equal(spawned.json.data.harness, harness);
  if (opts.waitForReady !== false) await ready();
  return { ...views, harness, agent, d, version: found.version, token, server, prompts, sandbox, ready };
}
