import type { Command } from 'commander';
import { ensureTokenFile } from '../auth/token-file.js';
import { DuplicateTokenNameError, TokenStore, type TokenGrants } from '../auth/token-store.js';
import { TokenName, type IssuedTokenKind, type TokenRecord } from '../wire/tokens.js';
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
    .option(
      '--fleet',
      'let the device run the fleet: spawn, environments, start/stop, rename, remove, run tasks',
      false,
    )
    .action((name: string, o: { host?: string; token?: boolean; fleet: boolean }) =>
      o.token ? issue('device', name, { fleet: o.fleet }) : runPairCommand(name, o),
    );
  device
    .command('list')
    .option('--json')
    .description('list paired devices, with the ones that may run the fleet')
    .action((o) => listTokens('device', o.json));
  device
    .command('fleet <id-or-name> <on|off>')
    .description('grant (on) or take back (off) a paired device’s fleet scope; it applies to its next request')
    .action((id: string, state: string) => setFleet(id, state));
  device
    .command('revoke <id-or-name>')
    .description('revoke a device token')
    .action((id: string) => revokeToken('device', id));

  const client = program.command('client').description('API-client tokens (dashboards, integrations)');
  client
    .command('add <name>')
    .option('--can-post', 'allow this client to post chat messages', false)
    .description('create an API-client token; it is printed once')
    .action((name: string, o: { canPost: boolean }) => issue('client', name, { canPost: o.canPost }));
  client
    .command('list')
    .option('--json')
    .description('list API clients')
    .action((o) => listTokens('client', o.json));
  client
    .command('revoke <id-or-name>')
    .description('revoke an API-client token')
    .action((id: string) => revokeToken('client', id));
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

function issue(kind: IssuedTokenKind, rawName: string, grants: TokenGrants): void {
  const name = TokenName.safeParse(rawName);
  if (!name.success) fail(`name: ${name.error.issues[0]!.message}`);
  try {
    const { record, token } = withStore((s) => s.issue(kind, name.data, grants));
    const flags = `${record.can_post ? ', can_post' : ''}${record.fleet ? ', fleet' : ''}`;
    console.log(`${kind} "${record.name}" created (id ${record.id}${flags})`);
    console.log(`token: ${token}`);
    console.log('This token is shown once; store it now. Revoke it with `leo ' + kind + ' revoke ' + record.id + '`.');
  } catch (err) {
    if (err instanceof DuplicateTokenNameError) fail(err.message);
    throw err;
  }
}

export function listTokens(kind: IssuedTokenKind, json: boolean | undefined): void {
  const records = withStore((s) => s.list(kind));
  if (json) return console.log(JSON.stringify(records, null, 2));
  if (!records.length) return console.log(`no ${kind}s`);
  for (const r of records) console.log(formatRecord(r));
}

/**
 * Through the running daemon, so the event streams and connections the token holds close with it; straight in the
 * database when no daemon answers, since then nothing is held.
 */
export async function revokeToken(kind: IssuedTokenKind, idOrName: string): Promise<void> {
  const inDaemon = await tokenInDaemon('DELETE', kind, idOrName);
  const record = inDaemon === undefined ? withStore((s) => s.revoke(kind, idOrName)) : inDaemon;
  if (!record) fail(`no ${kind} with id or name "${idOrName}"`);
  console.log(`revoked ${kind} "${record.name}" (${record.id})`);
}

/**
 * `leo device fleet <id-or-name> on|off`. Through the running daemon too, so the device's open streams end and its app
 * reconnects to learn what it may do now; the scope itself is read from the database on every request.
 */
async function setFleet(idOrName: string, state: string): Promise<void> {
  if (state !== 'on' && state !== 'off') fail(`fleet: say "on" or "off", not "${state}"`);
  const fleet = state === 'on';
  const inDaemon = await tokenInDaemon('PATCH', 'device', idOrName, { fleet });
  const record = inDaemon === undefined ? withStore((s) => s.setFleet(idOrName, fleet)) : inDaemon;
  if (!record) fail(`no device with id or name "${idOrName}"`);
  console.log(
    fleet
      ? `device "${record.name}" may now run the fleet (spawn, environments, start/stop, rename, remove, run tasks)`
      : `device "${record.name}" may no longer run the fleet; it still reads and chats`,
  );
}

/**
 * A token route on the running daemon's socket: the record it answers, null when the daemon knows no such token,
 * undefined when no daemon is running (the caller then works on the database itself).
 */
async function tokenInDaemon(
  method: 'DELETE' | 'PATCH',
  kind: IssuedTokenKind,
  idOrName: string,
  body?: object,
): Promise<TokenRecord | null | undefined> {
  const target = { socketPath: resolvePaths().socketFile, path: `/api/v1/${kind}s/${encodeURIComponent(idOrName)}` };
  let res: { status: number; text: string };
  try {
    res = await daemonRequest(
      target,
      body ? { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : { method },
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ECONNREFUSED') return undefined;
    throw err;
  }
  if (res.status === 404) return null;
  const answer = JSON.parse(res.text) as { ok: boolean; data?: TokenRecord; error?: string };
  if (!answer.ok || !answer.data) fail(answer.error ?? `the daemon answered HTTP ${res.status}`);
  return answer.data;
}

function formatRecord(r: TokenRecord): string {
  const flags = {
    client: r.can_post ? '  can_post' : '  read-only',
    device: r.fleet ? '  fleet' : '  no fleet',
    peer: '  hub',
  }[r.kind];
  return `${r.id}  ${r.name}${flags}  created ${r.created_at}  last used ${r.last_used_at ?? 'never'}`;
}
