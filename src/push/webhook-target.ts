import { lookup as dnsLookup } from 'node:dns/promises';
import net from 'node:net';

/**
 * Where a webhook may point (issue 20 item 10: a device token could make Leo POST anywhere, a blind SSRF). Only
 * http(s), and only to public addresses: every address the host resolves to must lie outside loopback, private
 * (RFC 1918, unique-local, carrier-grade NAT, which Tailscale uses), link-local (the cloud metadata service lives at
 * 169.254.169.254), unspecified, multicast and broadcast ranges. A relay on this machine or the LAN is allowed by
 * naming its host (as written in the URL) in chat.webhook_allowed_hosts. The host is resolved when the subscription is
 * registered and again before each send, so a name that later resolves somewhere private (DNS rebinding) is refused
 * at send time; fetch then resolves it once more itself, a window this check does not close.
 */

const NON_PUBLIC = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  NON_PUBLIC.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  NON_PUBLIC.addSubnet(net6, bits, 'ipv6');

export function isPublicAddress(address: string): boolean {
  const v4mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (v4mapped) return isPublicAddress(v4mapped);
  const family = net.isIP(address);
  if (family === 0) return false;
  return !NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

export type Resolve = (host: string) => Promise<string[]>;
const resolveAll: Resolve = async (host) => (await dnsLookup(host, { all: true })).map((a) => a.address);

/** Why Leo will not POST to `url`, or null when it may. */
export function webhookTargetRefusal(
  url: string,
  allowedHosts: readonly string[],
  resolve: Resolve = resolveAll,
): Promise<string | null> {
  return targetRefusal({ what: 'webhook', protocols: ['http:', 'https:'] }, url, allowedHosts, resolve);
}

/**
 * Why Leo will not send a Web Push to `endpoint`, or null when it may: a device chooses the endpoint as freely as a
 * webhook URL (issue 28), so the same public-addresses rule and the same allow-list apply.
 */
export function pushEndpointRefusal(
  endpoint: string,
  allowedHosts: readonly string[],
  resolve: Resolve = resolveAll,
): Promise<string | null> {
  return targetRefusal({ what: 'push endpoint', protocols: ['https:'] }, endpoint, allowedHosts, resolve);
}

async function targetRefusal(
  kind: { what: string; protocols: readonly string[] },
  url: string,
  allowedHosts: readonly string[],
  resolve: Resolve,
): Promise<string | null> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `the ${kind.what} URL is not a URL`;
  }
  if (!kind.protocols.includes(parsed.protocol))
    return `a ${kind.what} URL must be ${kind.protocols.map((p) => p.slice(0, -1)).join(' or ')}`;
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (allowedHosts.some((h) => h.replace(/^\[(.*)\]$/, '$1').toLowerCase() === host)) return null;
  let addresses: string[];
  try {
    addresses = net.isIP(host) ? [host] : await resolve(host);
  } catch {
    return `the ${kind.what} host ${host} does not resolve`;
  }
  const inner = addresses.find((a) => !isPublicAddress(a));
  if (inner === undefined && addresses.length) return null;
  return (
    `the ${kind.what} host ${host} resolves to ${inner ?? 'no address'}, a loopback, private or link-local address; ` +
    'list the host in chat.webhook_allowed_hosts to allow it'
  );
}
