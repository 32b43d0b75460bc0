// Running the real Codex CLI against the scripted Responses API server (responses-server.ts): where the pinned
// binary is, and a CODEX_HOME like a returning user's — their model provider in config.toml, the key in the
// environment — that never touches the real ~/.codex.
import fs from 'node:fs';
import path from 'node:path';
import { findCli, harnessTemplateConfig, sandboxDir } from './pinned-cli.js';
import { removeSandbox } from './strays.js';

export const findCodex = () => findCli('codex');

/** The user's provider id in config.toml, and the variable its env_key names. */
export const CODEX_PROVIDER = 'scripted';
export const CODEX_KEY_ENV = 'SCRIPTED_OPENAI_API_KEY';

export interface CodexSandbox {
  /** The sandbox's own temp folder (CODEX_HOME, room for a workspace); removed by cleanup. */
  dir: string;
  /** CODEX_HOME: config.toml, sessions, logs and state live here, never in ~/.codex. */
  codexHome: string;
  apiKey: string;
  /** The variables codex needs to reach the scripted server: CODEX_HOME and the provider's key. */
  env: Record<string, string>;
  cleanup(): void;
}

/**
 * A throwaway CODEX_HOME whose config.toml makes `baseUrl` the default model provider, as a user who has run codex
 * before has it: a custom provider (so no login screen), the screen-reader check codex records on its first run, and
 * another project trusted — but never the workspace an agent will get, so a trust dialog for it would show.
 * `extraToml` is appended (hooks, say).
 */
export function codexSandbox(opts: {
  baseUrl: string;
  model: string;
  apiKey?: string;
  extraToml?: string;
  /** The folder to make the sandbox in (a test host's home); default the system temp folder. */
  under?: string;
}): CodexSandbox {
  const root = sandboxDir('codex', opts.under);
  const codexHome = path.join(root, 'codex-home');
  fs.mkdirSync(codexHome, { mode: 0o700 });
  const apiKey = opts.apiKey ?? `sk-test-${Math.random().toString(36).slice(2)}`;
  const toml = [
    `model = ${JSON.stringify(opts.model)}`,
    `model_provider = ${JSON.stringify(CODEX_PROVIDER)}`,
    '',
    `[model_providers.${CODEX_PROVIDER}]`,
    'name = "Scripted"',
    `base_url = ${JSON.stringify(opts.baseUrl)}`,
    `env_key = ${JSON.stringify(CODEX_KEY_ENV)}`,
    'wire_api = "responses"',
    '',
    '[tui]',
    'screen_reader_detection_done = true',
    '',
    `[projects.${JSON.stringify(path.join(root, 'another-project'))}]`,
    'trust_level = "trusted"',
    '',
    opts.extraToml ?? '',
  ].join('\n');
  fs.writeFileSync(path.join(codexHome, 'config.toml'), toml, { mode: 0o600 });
  return {
    dir: root,
    codexHome,
    apiKey,
    env: { CODEX_HOME: codexHome, [CODEX_KEY_ENV]: apiKey },
    cleanup() {
      removeSandbox(root);
    },
  };
}

/**
 * leo.yaml for one codex template (`coder`) using the sandbox: a named environment carrying CODEX_HOME and the key
 * plus a PATH that finds the codex binary. Without `workspace` the agent works in Leo's own fresh workspace.
 */
export function codexTemplateConfig(
  codexBin: string,
  sandbox: CodexSandbox,
  model: string,
  opts: { workspace?: string } = {},
): string {
  return harnessTemplateConfig({
    harness: 'codex',
    bin: codexBin,
    env: sandbox.env,
    model,
    environment: 'codex-offline',
    workspace: opts.workspace,
  });
}
