import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline/promises';
import { checkHarnessProgram } from '../harnesses/program.js';
import { INIT_HARNESSES, initialConfig, SHELL_TEMPLATE, type Installed } from '../config/init-template.js';
import { resolvePaths } from '../core/home.js';

/**
 * `leo init`: writes a commented leo.yaml with a template per harness (commented out when its CLI is not on PATH). On a terminal it asks where
 * agents' folders go; from a script (stdin not a terminal) it asks nothing. An existing file is kept unless --force.
 */
export async function runInitCommand(o: { force?: boolean }): Promise<void> {
  const file = resolvePaths().configFile;
  if (fs.existsSync(file) && !o.force) {
    console.error(`leo init: ${file} exists; edit it, or run \`leo init --force\` to replace it`);
    process.exitCode = 1;
    return;
  }
  let workspaceRoot: string | undefined;
  if (process.stdin.isTTY) {
    const rl = readline.createInterface({ input: process.stdin, output: process.stdout });
    workspaceRoot = (await rl.question("Folder for agents' workspaces (Enter: ~/.leo/agents): ")).trim() || undefined;
    rl.close();
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const installed = Object.fromEntries(
    INIT_HARNESSES.map((h) => [h, checkHarnessProgram(h, null, process.env.PATH ?? '')?.ok === true]),
  ) as Installed;
  const text = initialConfig({ installed, ...(workspaceRoot ? { workspaceRoot } : {}) });
  const missing = INIT_HARNESSES.filter((h) => !installed[h]);
  const written = [...INIT_HARNESSES.filter((h) => installed[h]), SHELL_TEMPLATE];
  // 0600: the file holds environment values (API keys).
  fs.writeFileSync(file, text, { mode: 0o600 });
  fs.chmodSync(file, 0o600);
  console.log(
    [
      `wrote ${file} (templates: ${written.join(', ')}` +
        (missing.length ? `; written commented out, their CLI not on PATH: ${missing.join(', ')})` : ')'),
      'next: leo doctor  ·  leo daemon (or leo service install)  ·  leo agent spawn shell --name first',
    ].join('\n'),
  );
}
