import type { HostEntry, HostInvite, RemovedHost } from '../wire/host.js';
import { callDaemon } from './socket-client.js';

/**
 * `leo host …` (issue 31): pairing this machine's daemon with a hub, from either side. Every command asks the local
 * daemon over its unix socket; the hub's daemon is the one that talks to the host, and holds the peer token.
 */

/** On the host: a one-time join link for the hub `hub`. */
export async function runHostInvite(hub: string, o: { url?: string }): Promise<void> {
  await reported(async () => {
    const invite = await callDaemon<HostInvite>('POST', '/api/v1/host/invites', {
      hub,
      ...(o.url ? { url: o.url } : {}),
    });
    console.log(`On the hub, run (one use, until ${invite.expires_at}):`);
    console.log(`  leo host add <name> '${invite.link}'`);
    console.log(`The hub will reach this machine at ${invite.url}; if it cannot, invite again with --url <url>.`);
    if (invite.pin)
      console.log(
        `The link pins the certificate this daemon serves (${invite.pin}): the hub will accept that one only, ` +
          'so a new certificate (web.tls) means pairing again.',
      );
  });
}

/** On the hub: redeems a join link and starts following the host as `name`. */
export async function runHostAdd(name: string, link: string): Promise<void> {
  await reported(async () => {
    const host = await callDaemon<HostEntry>('POST', '/api/v1/hosts', { name, link });
    console.log(`added host "${host.name}" at ${host.url}: leo ${host.version}, ${host.rtt_ms} ms round trip`);
  });
}

export async function runHostList(o: { json?: boolean }): Promise<void> {
  await reported(async () => {
    const hosts = await callDaemon<HostEntry[]>('GET', '/api/v1/hosts');
    if (o.json) return console.log(JSON.stringify(hosts, null, 2));
    if (!hosts.length) return console.log('no hosts (add one with `leo host add <name> <join-link>`)');
    for (const h of hosts) console.log(formatHost(h));
  });
}

export async function runHostRemove(name: string): Promise<void> {
  await reported(async () => {
    const removed = await callDaemon<RemovedHost>('DELETE', `/api/v1/hosts/${encodeURIComponent(name)}`);
    console.log(
      removed.revoked
        ? `removed host "${name}"; it revoked this hub's token`
        : `removed host "${name}" here; the host did not revoke the token: ${removed.note ?? 'no reason given'}`,
    );
  });
}

export function formatHost(h: HostEntry): string {
  const seen = `last seen ${h.last_seen ?? 'never'}`;
  return h.status === 'online'
    ? `${h.name}  online  ${h.url}  leo ${h.version}  ${h.rtt_ms} ms  ${seen}`
    : `${h.name}  offline  ${h.url}  ${seen}  (${h.error ?? 'unreachable'})`;
}

async function reported(run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    console.error(`leo: ${(err as Error).message}`);
    process.exit(1);
  }
}
