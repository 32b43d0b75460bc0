import type { Clock } from '../core/clock.js';
import { LeoError, conflict, notFound } from '../core/leo-error.js';
import { rfc3339 } from '../core/time.js';
import type { Logger } from '../core/logger.js';
import type { Database } from '../store/database.js';
import { PROTOCOL, type HostEntry, type HostInfo, type RemovedHost } from '../wire/host.js';
import { HostRefusedError, type HostClient } from './host-client.js';
import { parseJoinLink } from './join-link.js';
import type { PeerTokenFiles } from './peer-token-files.js';

export interface HostRegistryDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  tokens: PeerTokenFiles;
  /** client.hosts as leo.yaml says now: name → URL. */
  configured(): Record<string, { url: string }>;
  /** Writes (or, for undefined, deletes) `client.hosts.<name>` in leo.yaml, comments kept, and reloads it. */
  writeEntry(name: string, entry: { url: string } | undefined): Promise<void>;
  connect(url: string): HostClient;
  /** What the hub's followers know of each host now; a host not followed (no token) is probed instead. */
  followed: { entry(name: string): HostEntry | null };
  /** The name this hub's machine gives itself, told to a host when joining it. */
  selfName(): string;
}

interface Row {
  name: string;
  host_id: string;
  last_seen_at: string | null;
}

/**
 * The hub's side of several machines (issue 31): the hosts it follows. Each is three things kept together: its URL in
 * leo.yaml (`client.hosts.<name>`), its peer token in a 0600 file, and what the hub learnt of it in chat.db (host_id,
 * when it was last reached). Adding redeems a join link at the host; removing asks the host to revoke the token.
 */
export class HostRegistry {
  constructor(private readonly deps: HostRegistryDeps) {}

  async add(name: string, link: string): Promise<HostEntry> {
    const parsed = parseJoinLink(link);
    if ('error' in parsed) throw new LeoError(400, parsed.error, 'bad_join_link', { field: 'link' });
    if (this.deps.configured()[name] || this.deps.tokens.read(name) || this.row(name))
      throw conflict(`a host named "${name}" is already added (\`leo host remove ${name}\` first)`);
    const client = this.deps.connect(parsed.url);
    let token: string;
    try {
      token = (await client.join(parsed.code, this.deps.selfName())).token;
    } catch (err) {
      if (err instanceof HostRefusedError && err.hostCode === 'bad_join_code')
        throw new LeoError(
          400,
          'the host refused the join link: it is unknown, already used or expired (run `leo host invite` on the host again)',
          'bad_join_code',
        );
      throw err;
    }
    const { info, rttMs } = await client.hostInfo(token).catch(async (err: unknown) => {
      await client.revokeSelf(token).catch(() => undefined);
      throw err;
    });
    if (info.protocol.major !== PROTOCOL.major) {
      // The token is of no use to this hub: the host is asked to forget it, and nothing is kept here.
      await client.revokeSelf(token).catch(() => undefined);
      throw new LeoError(
        409,
        `the host at ${parsed.url} speaks protocol ${versionOf(info.protocol)} (leo ${info.version}) and this hub ` +
          `speaks ${versionOf(PROTOCOL)}: a hub follows hosts of its own major version; upgrade the older one`,
        'protocol_mismatch',
      );
    }
    this.deps.tokens.write(name, token);
    const now = rfc3339(this.deps.clock.now());
    this.deps.db
      .prepare(`INSERT INTO hosts (name, host_id, added_at, last_seen_at) VALUES (?, ?, ?, ?)`)
      .run(name, info.host_id, now, now);
    await this.deps.writeEntry(name, { url: parsed.url });
    this.deps.logger.info({ host: name, url: parsed.url, host_id: info.host_id }, 'host added');
    return online(name, parsed.url, now, info, rttMs);
  }

  /** Every configured host as its follower sees it now; one without a follower is probed (GET /api/v1/host). */
  async list(): Promise<HostEntry[]> {
    const hosts = Object.entries(this.deps.configured()).sort(([a], [b]) => a.localeCompare(b));
    return Promise.all(hosts.map(([name, { url }]) => this.deps.followed.entry(name) ?? this.probe(name, url)));
  }

  /**
   * Asks the host to revoke the hub's token, then forgets the host here whatever it answered: a host that is gone for
   * good must still be removable. The answer says whether the host confirmed.
   */
  async remove(name: string): Promise<RemovedHost> {
    const url = this.deps.configured()[name]?.url;
    const token = this.deps.tokens.read(name);
    if (!url && !token && !this.row(name)) throw notFound(`no host named "${name}"`);
    let revoked = false;
    let note: string | undefined;
    if (url && token) {
      try {
        await this.deps.connect(url).revokeSelf(token);
        revoked = true;
      } catch (err) {
        note = `${(err as Error).message}; the token stays valid there until revoked with \`leo host revoke\` on the host`;
      }
    }
    this.deps.tokens.remove(name);
    this.deps.db.prepare(`DELETE FROM hosts WHERE name = ?`).run(name);
    if (url) await this.deps.writeEntry(name, undefined);
    this.deps.logger.info({ host: name, revoked }, 'host removed');
    return { name, revoked, ...(note ? { note } : {}) };
  }

  private async probe(name: string, url: string): Promise<HostEntry> {
    const lastSeen = this.row(name)?.last_seen_at ?? null;
    const token = this.deps.tokens.read(name);
    const offline = (error: string): HostEntry => ({
      name,
      url,
      status: 'offline',
      last_seen: lastSeen,
      version: null,
      host_id: this.row(name)?.host_id ?? null,
      rtt_ms: null,
      error,
    });
    if (!token) return offline(`no peer token for this host in the state directory: remove it and add it again`);
    try {
      const { info, rttMs } = await this.deps.connect(url).hostInfo(token);
      const now = rfc3339(this.deps.clock.now());
      this.deps.db.prepare(`UPDATE hosts SET last_seen_at = ? WHERE name = ?`).run(now, name);
      return online(name, url, now, info, rttMs);
    } catch (err) {
      return offline((err as Error).message);
    }
  }

  private row(name: string): Row | undefined {
    return this.deps.db.prepare(`SELECT name, host_id, last_seen_at FROM hosts WHERE name = ?`).get(name) as
      Row | undefined;
  }
}

const versionOf = (p: { major: number; minor: number }) => `${p.major}.${p.minor}`;

function online(name: string, url: string, seen: string, info: HostInfo, rttMs: number): HostEntry {
  return { name, url, status: 'online', last_seen: seen, version: info.version, host_id: info.host_id, rtt_ms: rttMs };
}
