// Running the real opencode CLI against the scripted chat-completions server (openai-server.ts): where the pinned
// binary is, and XDG folders like a returning user's — their provider in the global opencode.json — that never
// touch the real ~/.config/opencode. Leo hands opencode its own file through OPENCODE_CONFIG, so the user's provider
// has to live in the global config, as it does for a real user.
import fs from 'node:fs';
import path from 'node:path';
import { findCli, harnessTemplateConfig, installer, sandboxDir } from './pinned-cli.js';
import { removeSandbox } from './strays.js';

/**
 * The pinned opencode, and `userDeps`: the plugin package install opencode leaves in a returning user's config folder
 * (native-bins/clis.mjs installs it beside the CLI), when it is there.
 */
export async function findOpencode(): Promise<
  { bin: string; version: string; userDeps: string | null } | { missing: string }
> {
  const found = await findCli('opencode');
  if ('missing' in found) return found;
  const userDeps = (await installer()).opencodeUserDepsPath();
  return { ...found, userDeps: fs.existsSync(path.join(userDeps, 'node_modules')) ? userDeps : null };
}

/** The user's provider id in opencode.json, and the variable its apiKey is read from. */
export const OPENCODE_PROVIDER = 'scripted';
export const OPENCODE_KEY_ENV = 'SCRIPTED_OPENAI_API_KEY';

export interface OpencodeSandbox {
  /** The sandbox's own temp folder (the XDG folders); removed by cleanup. */
  dir: string;
  /** $XDG_CONFIG_HOME/opencode/opencode.json: the user's global config. */
  configFile: string;
  /** `<provider>/<model>`, what opencode's --model and `model` take. */
  model: string;
  apiKey: string;
  /** XDG_* and TMPDIR pointing into the sandbox, the key, and OPENCODE_DISABLE_MODELS_FETCH (no models.dev look-up). */
  env: Record<string, string>;
  cleanup(): void;
}

/** A throwaway set of XDG folders whose global opencode.json makes `baseUrl` (chat completions) the default model. */
export function opencodeSandbox(opts: {
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** More of the user's own settings in their opencode.json (for example `permission`). */
  userConfig?: Record<string, unknown>;
  /**
   * findOpencode's `userDeps`, copied into the config folder: a user who has started opencode with a plugin before
   * has it there, and opencode then starts without installing it first.
   */
  userDeps?: string | null;
  /** The folder to make the sandbox in (a test host's home); default the system temp folder. */
  under?: string;
}): OpencodeSandbox {
  const root = sandboxDir('opencode', opts.under);
  const xdg = Object.fromEntries(
    ['CONFIG', 'DATA', 'CACHE', 'STATE'].map((k) => [`XDG_${k}_HOME`, path.join(root, k.toLowerCase())]),
  );
  // opencode's runtime unpacks native libraries (and keeps scratch files) in TMPDIR on every start and never removes
  // them: kept inside the sandbox, they go with it.
  const tmp = path.join(root, 'tmp');
  for (const dir of [...Object.values(xdg), tmp]) fs.mkdirSync(dir, { mode: 0o700 });
  const configFile = path.join(xdg.XDG_CONFIG_HOME!, 'opencode', 'opencode.json');
  fs.mkdirSync(path.dirname(configFile), { mode: 0o700 });
  const apiKey = opts.apiKey ?? `sk-test-${Math.random().toString(36).slice(2)}`;
  const model = `${OPENCODE_PROVIDER}/${opts.model}`;
  const config = {
    $schema: 'https://opencode.ai/config.json',
    model,
    provider: {
      [OPENCODE_PROVIDER]: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted',
        options: { baseURL: opts.baseUrl, apiKey: `{env:${OPENCODE_KEY_ENV}}` },
        models: { [opts.model]: { name: opts.model } },
      },
    },
    ...opts.userConfig,
  };
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2) + '\n', { mode: 0o600 });
  if (opts.userDeps) {
    for (const f of ['package.json', 'package-lock.json', 'node_modules'])
      fs.cpSync(path.join(opts.userDeps, f), path.join(path.dirname(configFile), f), { recursive: true });
  }
  return {
    dir: root,
    configFile,
    model,
    apiKey,
    env: { ...xdg, TMPDIR: tmp, OPENCODE_DISABLE_MODELS_FETCH: '1', [OPENCODE_KEY_ENV]: apiKey },
    cleanup() {
      removeSandbox(root);
    },
  };
}

/**
 * leo.yaml for one opencode template (`coder`) using the sandbox: a named environment carrying the XDG folders and
 * the key plus a PATH that finds the opencode binary. Without `workspace` the agent works in Leo's fresh workspace.
 */
export function opencodeTemplateConfig(
  opencodeBin: string,
  sandbox: OpencodeSandbox,
  opts: { workspace?: string } = {},
): string {
  return harnessTemplateConfig({
    harness: 'opencode',
    bin: opencodeBin,
    env: sandbox.env,
    model: sandbox.model,
    environment: 'opencode-offline',
    workspace: opts.workspace,
  });
}
