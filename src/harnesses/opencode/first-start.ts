// Whether opencode will install its plugin package before its first answer. Measured in opencode 1.18.33's
// Config.loadInstanceState and Npm.install: at every start it runs an npm install of `@opencode-ai/plugin` into each
// config folder (the global one, `.opencode` folders from the workspace up, `~/.opencode`, OPENCODE_CONFIG_DIR), and
// when any plugin is configured (Leo's always is) the server waits for those installs before it loads plugins. A
// folder is left alone when it is not writable, or has node_modules and a package-lock.json whose root lists every
// dependency package.json declares plus `@opencode-ai/plugin`. The package is 64 MB with its dependencies (effect, a
// native msgpackr build): Leo does not ship it, it says why the first start is slow.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PLUGIN_PACKAGE = '@opencode-ai/plugin';

const readJson = (file: string): Record<string, unknown> => {
  try {
    const v: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
};

const depNames = (manifest: unknown): string[] => {
  if (!manifest || typeof manifest !== 'object') return [];
  const m = manifest as Record<string, unknown>;
  return ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((k) =>
    m[k] && typeof m[k] === 'object' ? Object.keys(m[k] as object) : [],
  );
};

/** Npm.install's test: would opencode install into `dir` (created if missing, as opencode does its global one)? */
export function needsPluginInstall(dir: string): boolean {
  const existing = fs.existsSync(dir) ? dir : path.dirname(dir);
  try {
    fs.accessSync(existing, fs.constants.W_OK);
  } catch {
    return false;
  }
  if (!fs.existsSync(path.join(dir, 'node_modules'))) return true;
  const packages = readJson(path.join(dir, 'package-lock.json')).packages;
  const locked = new Set(
    depNames(packages && typeof packages === 'object' ? (packages as Record<string, unknown>)[''] : null),
  );
  return [...depNames(readJson(path.join(dir, 'package.json'))), PLUGIN_PACKAGE].some((n) => !locked.has(n));
}

/** The config folders opencode installs into, for an agent with environment `env` working in `workspace`. */
export function opencodeConfigDirs(env: NodeJS.ProcessEnv, workspace: string): string[] {
  const home = env.HOME ?? os.homedir();
  const dirs = [path.join(env.XDG_CONFIG_HOME || path.join(home, '.config'), 'opencode')];
  for (let d = path.resolve(workspace); ; d = path.dirname(d)) {
    if (fs.existsSync(path.join(d, '.opencode'))) dirs.push(path.join(d, '.opencode'));
    if (fs.existsSync(path.join(d, '.git')) || path.dirname(d) === d) break;
  }
  if (fs.existsSync(path.join(home, '.opencode'))) dirs.push(path.join(home, '.opencode'));
  if (env.OPENCODE_CONFIG_DIR) dirs.push(env.OPENCODE_CONFIG_DIR);
  return [...new Set(dirs)];
}

/** The thread's note when this start of opencode will first install its plugin package, else null. */
export function opencodeStartNote(env: NodeJS.ProcessEnv, workspace: string): string | null {
  const pending = opencodeConfigDirs(env, workspace).filter(needsPluginInstall);
  if (!pending.length) return null;
  return (
    `Preparing opencode… its first start installs ${PLUGIN_PACKAGE} from npm into ${pending.join(', ')} ` +
    'before it answers; that can take a minute, once.'
  );
}
