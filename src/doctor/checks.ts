import fs from 'node:fs';
import type { Config } from '../config/schema.js';
import type { LeoPaths } from '../core/home.js';
import { ffprobeBeside, probe, resolveProgram } from '../native/programs.js';
import { schemaVersion } from '../store/migrate.js';
import { migrations } from '../store/migrations.js';
import { openSqlite } from '../store/sqlite.js';
import { checkHarnessProgram, cliHarnesses } from '../harnesses/program.js';
import type { Harness } from '../harnesses/types.js';
import { checkHarnessLogin } from '../harnesses/login.js';
import type { CheckResult } from '../wire/check-result.js';

export interface DoctorContext {
  paths: LeoPaths;
  /** The loaded config, or the loader's errors when it failed. */
  config: { ok: true; config: Config; warnings: string[] } | { ok: false; errors: string[] };
  envPath?: string;
  /** The daemon's environment, under the templates' own (default: this process's). */
  env?: NodeJS.ProcessEnv;
  /** The user's home, where the harnesses keep their logins. */
  home: string;
}

const SETUP = 'node native-bins/setup.mjs (or npm start, which runs it)';
const GGML_MAGIC = 0x67676d6c;

export async function runChecks(ctx: DoctorContext): Promise<CheckResult[]> {
  const cfg = ctx.config.ok ? ctx.config.config : null;
  return [
    checkConfig(ctx),
    await checkProgram('tmux', undefined, '', ['-V'], true, ctx.envPath, 'apt-get install tmux'),
    await checkProgram(
      'ffmpeg',
      cfg?.chat.ffmpeg,
      'chat.ffmpeg',
      ['-version'],
      false,
      ctx.envPath,
      'apt-get install ffmpeg',
    ),
    await checkProgram(
      'ffprobe',
      ffprobeBeside(cfg?.chat.ffmpeg),
      'chat.ffmpeg',
      ['-version'],
      false,
      ctx.envPath,
      'apt-get install ffmpeg',
    ),
    await checkProgram(
      'whisper-cli',
      cfg?.chat.whisper_cli,
      'chat.whisper_cli',
      ['--version'],
      false,
      ctx.envPath,
      SETUP,
    ),
    checkWhisperModel(cfg),
    ...cliHarnesses().flatMap((h) => {
      const cli = checkHarness(h, cfg, ctx.envPath ?? process.env.PATH ?? '');
      const login = checkHarnessLogin(h, templateEnvs(h, cfg, ctx.env ?? process.env), ctx.home);
      return login ? [cli, login] : [cli];
    }),
    // Not required: Leo runs with it, but leo.yaml holds environment values (API keys) other users could read.
    ...(fs.existsSync(ctx.paths.configFile) ? [checkMode('config file', ctx.paths.configFile, 0o600, false)] : []),
    checkMode('state folder', ctx.paths.stateDir, 0o700, true),
    checkMode('operator token', ctx.paths.operatorTokenFile, 0o600, true),
    checkMode('agent token', ctx.paths.agentTokenFile, 0o600, true),
    checkMode('socket', ctx.paths.socketFile, 0o600, true),
    checkDatabase(ctx.paths.database),
  ];
}

function checkConfig(ctx: DoctorContext): CheckResult {
  const file = ctx.paths.configFile;
  if (!ctx.config.ok)
    return {
      name: 'config',
      status: 'wrong',
      detail: ctx.config.errors.join('\n'),
      fix: `edit ${file}; the daemon refuses to start until it validates`,
      required: true,
    };
  const where = fs.existsSync(file) ? file : `${file} (absent: all defaults)`;
  const warnings = ctx.config.warnings.length ? `; ${ctx.config.warnings.join('; ')}` : '';
  return { name: 'config', status: 'ok', detail: `${where}${warnings}`, required: true };
}

async function checkProgram(
  name: string,
  configured: string | undefined,
  configKey: string,
  versionArgs: string[],
  required: boolean,
  envPath: string | undefined,
  fix: string,
): Promise<CheckResult> {
  const purpose = required ? '' : ' (optional: voice notes)';
  const found = resolveProgram(name, configured, configKey, envPath);
  if (!found.path)
    return {
      name,
      status: 'missing',
      detail: configured
        ? `${configured} does not exist (set by ${configKey})${purpose}`
        : `not found in native-bins or PATH${purpose}`,
      fix: configured ? `fix or remove ${configKey}` : fix,
      required,
    };
  const run = await probe(found.path, versionArgs);
  if (!run.ok)
    return {
      name,
      status: 'wrong',
      detail: `${found.path} does not run: ${run.output || 'no output'}${purpose}`,
      fix,
      required,
    };
  return { name, status: 'ok', detail: `${run.output} — ${found.path} [${found.source}]`, required };
}

function checkWhisperModel(cfg: Config | null): CheckResult {
  const name = 'whisper model';
  const model = cfg?.chat.whisper_model;
  const fix = 'download a ggml whisper model (e.g. ggml-large-v3-turbo.bin) and set chat.whisper_model to its path';
  if (!model)
    return {
      name,
      status: 'missing',
      detail: 'chat.whisper_model is not set (optional: voice notes)',
      fix,
      required: false,
    };
  let magic: number;
  try {
    const fd = fs.openSync(model, 'r');
    const buf = Buffer.alloc(4);
    fs.readSync(fd, buf, 0, 4, 0);
    fs.closeSync(fd);
    magic = buf.readUInt32LE(0);
  } catch {
    return { name, status: 'missing', detail: `${model} (chat.whisper_model) cannot be read`, fix, required: false };
  }
  if (magic !== GGML_MAGIC)
    return { name, status: 'wrong', detail: `${model} is not a ggml model (bad magic)`, fix, required: false };
  const mb = (fs.statSync(model).size / 2 ** 20).toFixed(1);
  return { name, status: 'ok', detail: `${model} (${mb} MiB)`, required: false };
}

function checkMode(name: string, file: string, want: number, required: boolean): CheckResult {
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch {
    return { name, status: 'ok', detail: `${file} not created yet (the daemon creates it)`, required };
  }
  if (mode & ~want)
    return {
      name,
      status: 'wrong',
      detail: `${file} is ${mode.toString(8)}, readable by others (want ${want.toString(8)})`,
      fix: `chmod ${want.toString(8)} ${file}`,
      required,
    };
  return { name, status: 'ok', detail: `${file} (${mode.toString(8)})`, required };
}

function checkDatabase(file: string): CheckResult {
  const name = 'database';
  if (!fs.existsSync(file)) return { name, status: 'ok', detail: `${file} not created yet`, required: true };
  let version: number;
  try {
    version = schemaVersionOf(file);
  } catch (err) {
    return {
      name,
      status: 'wrong',
      detail: `${file} cannot be read: ${(err as Error).message}`,
      fix: 'check its permissions, or move it aside to start with an empty one',
      required: true,
    };
  }
  if (version > migrations.length)
    return {
      name,
      status: 'wrong',
      detail: `${file} is at schema version ${version}, newer than this leo (${migrations.length})`,
      fix: 'upgrade leo',
      required: true,
    };
  return { name, status: 'ok', detail: `${file} (schema ${version} of ${migrations.length})`, required: true };
}

/**
 * chat.db's user_version as SQLite sees it, never writing. While a daemon runs (or after one crashed) the newest
 * schema can sit in the write-ahead log, not yet in the file's header, so then it is read through a read-only
 * connection, which reads the log. With no log the file is the whole database and its header says it: a read-only
 * connection would leave empty -wal and -shm files behind there.
 */
function schemaVersionOf(file: string): number {
  if (fs.existsSync(`${file}-wal`)) {
    const db = openSqlite(file, { readonly: true });
    try {
      return schemaVersion(db);
    } finally {
      db.close();
    }
  }
  // The header's user_version: bytes 60..63, big-endian.
  const header = Buffer.alloc(64);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, 64, 0);
  } finally {
    fs.closeSync(fd);
  }
  return header.readUInt32BE(60);
}

/**
 * A harness's CLI, looked up the way an agent's session finds it: on the PATH each template's named environments set,
 * else the daemon's. Required when a template uses the harness (its agents cannot start without it); otherwise only
 * reported.
 */
export function checkHarness(harness: Harness, cfg: Config | null, daemonPath: string): CheckResult {
  const users = templatesUsing(harness, cfg);
  const name = `${harness} CLI`;
  if (!users.length) {
    const found = checkHarnessProgram(harness, null, daemonPath);
    const detail = found?.ok ? found.path : 'not on PATH';
    return { name, status: 'ok', detail: `${detail} (no template uses it)`, required: false };
  }
  const problems: string[] = [];
  const paths = new Set<string>();
  for (const [template, t] of users) {
    const env = templateEnv(cfg!, t);
    const found = checkHarnessProgram(harness, t.command ?? null, env.PATH ?? daemonPath)!;
    if (found.ok) paths.add(found.path);
    else problems.push(`template ${template}: ${found.error}`);
  }
  if (problems.length)
    return {
      name,
      status: 'missing',
      detail: problems.join('\n'),
      fix: problems[0]!.replace(/^.*; /, ''),
      required: true,
    };
  return { name, status: 'ok', detail: [...paths].join(', '), required: true };
}

type Template = Config['templates'][string];

const templatesUsing = (harness: Harness, cfg: Config | null): [string, Template][] =>
  Object.entries(cfg?.templates ?? {}).filter(([, t]) => (t.harness ?? cfg?.defaults.harness) === harness);

/** What a template adds to an agent's environment: its named environments, then its own env. */
function templateEnv(cfg: Config, t: Template): Record<string, string> {
  const envs = t.environments ?? cfg.defaults.environments;
  return Object.assign({}, ...envs.map((e) => cfg.environments[e] ?? {}), t.env ?? {}) as Record<string, string>;
}

/** Each template using a harness with the environment its agents get: the daemon's, the template's on top. */
function templateEnvs(harness: Harness, cfg: Config | null, base: NodeJS.ProcessEnv) {
  return templatesUsing(harness, cfg).map(([name, t]) => ({ name, env: { ...base, ...templateEnv(cfg!, t) } }));
}
