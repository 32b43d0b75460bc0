// The real agent CLIs the end-to-end tests drive, as native-bins/clis.mjs pins and installs them: where each binary
// is (or why a test must skip), and the leo.yaml that hands one of them its credentials the way a user does.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type PinnedCli = 'claude' | 'codex' | 'opencode';

interface Installer {
  CLIS: Record<PinnedCli, { version: string }>;
  claudeBinPath(): string;
  codexBinPath(): string;
  opencodeBinPath(): string;
  opencodeUserDepsPath(): string;
}

/** native-bins/clis.mjs, found from dist/test/helpers/ or test/helpers/ alike. */
export async function installer(): Promise<Installer> {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['../..', '../../..']) {
    const candidate = path.resolve(here, up, 'native-bins', 'clis.mjs');
    if (fs.existsSync(candidate)) return import(candidate);
  }
  throw new Error('native-bins/clis.mjs not found');
}

/**
 * The pinned binary installed by `node scripts/setup.mjs --for-tests`, or why it cannot be used (for the test's skip
 * message).
 */
export async function findCli(cli: PinnedCli): Promise<{ bin: string; version: string } | { missing: string }> {
  const clis = await installer();
  const bin = { claude: clis.claudeBinPath, codex: clis.codexBinPath, opencode: clis.opencodeBinPath }[cli]();
  const { version } = clis.CLIS[cli];
  try {
    fs.accessSync(bin, fs.constants.X_OK);
  } catch {
    return {
      missing: `${cli} ${version} is not installed at ${bin} (run \`node scripts/setup.mjs --for-tests\`; it needs the npm registry)`,
    };
  }
  return { bin, version };
}

/**
 * A throwaway folder for one sandbox, under the system temp folder or `under` (a test host's home); never the user's
 * real config.
 */
export function sandboxDir(prefix: string, under = os.tmpdir()): string {
  return fs.mkdtempSync(path.join(under, `leo-${prefix}-`));
}

/**
 * leo.yaml for one template `coder` of `harness`, with a named environment carrying `env` plus a PATH that finds
 * `bin` first — the way a user hands an agent its credentials and model server. Without `workspace` the agent gets
 * Leo's own fresh workspace (one the CLI has never seen).
 */
export function harnessTemplateConfig(opts: {
  harness: PinnedCli;
  bin: string;
  env: Record<string, string>;
  model: string;
  environment: string;
  workspace?: string;
}): string {
  const env = { ...opts.env, PATH: [path.dirname(opts.bin), process.env.PATH].join(path.delimiter) };
  // JSON is YAML: the env map goes in verbatim, whatever characters the temp paths hold.
  return [
    'environments:',
    `  ${opts.environment}: ${JSON.stringify(env)}`,
    'templates:',
    '  coder:',
    `    harness: ${opts.harness}`,
    `    model: ${JSON.stringify(opts.model)}`,
    ...(opts.workspace === undefined ? [] : [`    workspace: ${JSON.stringify(opts.workspace)}`]),
    `    environments: [${opts.environment}]`,
    '',
  ].join('\n');
}
