import type { Command } from 'commander';
import { ensureTokenFile } from '../auth/token-file.js';
import { DuplicateTokenNameError, TokenName, type IssuedTokenKind, type TokenRecord } from '../auth/token-store.js';
import { TokenStore } from '../auth/token-store.js';
import { systemClock } from '../core/clock.js';
import { resolvePaths } from '../core/home.js';
import { openDatabase } from '../store/database.js';
import fs from 'node:fs';
import { daemonRequest } from './daemon-http.js';
import { runPairCommand } from './pair-command.js';

/**
 * `leo token`, `leo device ...`, `leo client ...`. They work on the files and the database directly, so they also
 * work while the daemon is down; SQLite's WAL lets them run beside a live daemon, which sees changes at once.
 */
export function registerTokenCommands(program: Command): void {
  program
    .command('token')
    .description('print the operator token (created on first use)')
    .action(() => {
      const paths = resolvePaths();
      console.log(ensureTokenFile(paths.operatorTokenFile, 'leo_op'));
    });

  const device = program.command('device').description('paired-device tokens (phones, the Mac app)');
  device
    .command('pair <name>')
    .description('print a one-time link (and its QR code) that pairs a browser as this device')
    .option('--host <host>', 'the host name the link uses, for a phone (one of web.allowed_hosts)')
    .option('--token', 'print a device token instead of a link (for clients that are not a browser)')
    .action((name: string, o: { host?: string; token?: boolean }) =>
      o.token ? issue('device', name, false) : runPairCommand(name, o),
    );
  device
    .command('list')
    .option('--json')
    .description('list paired devices')
    .action((o) => list('device', o.json));
  device
    .command('revoke <id-or-name>')
    .description('revoke a device token')
    .action((id: string) => revoke('device', id));

  const client = program.command('client').description('API-client tokens (dashboards, integrations)');
  client
    .command('add <name>')
    .option('--can-post', 'allow this client to post chat messages', false)
    .description('create an API-client token; it is printed once')
    .action((name: string, o: { canPost: boolean }) => issue('client', name, o.canPost));
  client
    .command('list')
    .option('--json')
    .description('list API clients')
    .action((o) => list('client', o.json));
  client
    .command('revoke <id-or-name>')
    .description('revoke an API-client token')
    .action((id: string) => revoke('client', id));
}

function withStore<T>(fn: (store: TokenStore) => T): T {
  const paths = resolvePaths();
  fs.mkdirSync(paths.stateDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(paths.database);
  try {
    return fn(new TokenStore(db, systemClock));
  } finally {
    db.close();
  }
}

function fail(message: string): never {
  console.error(`leo: ${message}`);
  process.exit(1);
}

function issue(kind: IssuedTokenKind, rawName: string, canPost: boolean): void {
  const name = TokenName.safeParse(rawName);
  if (!name.success) fail(`name: ${name.error.issues[0]!.message}`);
  try {
    const { record, token } = withStore((s) => s.issue(kind, name.data, canPost));
    console.log(`${kind} "${record.name}" created (id ${record.id}${record.can_post ? ', can_post' : ''})`);
    console.log(`token: ${token}`);
    console.log('This token is shown once; store it now. Revoke it with `leo ' + kind + ' revoke ' + record.id + '`.');
  } catch (err) {
    if (err instanceof DuplicateTokenNameError) fail(err.message);
    throw err;
  }
}

function list(kind: IssuedTokenKind, json: boolean | undefined): void {
  const records = withStore((s) => s.list(kind));
  if (json) return console.log(JSON.stringify(records, null, 2));
  if (!records.length) return console.log(`no ${kind}s`);
  for (const r of records) console.log(formatRecord(r));
}

/**
 * Through the running daemon, so the event streams and connections the token holds close with it; straight in the
 * database when no daemon answers, since then nothing is held.
 */
async function revoke(kind: IssuedTokenKind, idOrName: string): Promise<void> {
  const record = (await revokeInDaemon(kind, idOrName)) ?? withStore((s) => s.revoke(kind, idOrName));
  if (!record) fail(`no ${kind} with id or name "${idOrName}"`);
  console.log(`revoked ${kind} "${record.name}" (${record.id})`);
}

/** The revoked record, null when the daemon knows no such token, undefined when no daemon is running. */
async function revokeInDaemon(kind: IssuedTokenKind, idOrName: string): Promise<TokenRecord | null | undefined> {
  const target = { socketPath: resolvePaths().socketFile, path: `/api/v1/${kind}s/${encodeURIComponent(idOrName)}` };
  let res: { status: number; text: string };
  try {
    res = await daemonRequest(target, { method: 'DELETE' });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ECONNREFUSED') return undefined;
    throw err;
  }
  if (res.status === 404) return null;
  const body = JSON.parse(res.text) as { ok: boolean; data?: TokenRecord; error?: string };
  if (!body.ok || !body.data) fail(body.error ?? `the daemon answered HTTP ${res.status}`);
  return body.data;
}

function formatRecord(r: TokenRecord): string {
  const flags = r.kind === 'client' ? (r.can_post ? '  can_post' : '  read-only') : '';
  return `${r.id}  ${r.name}${flags}  created ${r.created_at}  last used ${r.last_used_at ?? 'never'}`;
}
