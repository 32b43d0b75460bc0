import { X509Certificate, createHash } from 'node:crypto';

/**
 * Certificate pinning for a host's own TLS listener (issue 31, a LAN without a CA): the host puts the fingerprint of the
 * certificate it serves into its join link, and the hub accepts on that host's connections that certificate and no
 * other, whatever its name or issuer. The form is HostPin's (wire/host.ts): `sha256:<hex of the DER's SHA-256>`.
 */
export function pinOfDer(der: Uint8Array): string {
  return `sha256:${createHash('sha256').update(der).digest('hex')}`;
}

/** The pin of the first certificate of a PEM chain: the leaf a TLS listener serves with it. */
export function pinOfPem(pem: Buffer | string): string {
  return pinOfDer(new X509Certificate(pem).raw);
}

/** Enough of a pin for a person to tell two apart in a message. */
export const shortPin = (pin: string) => `${pin.slice(0, 'sha256:'.length + 12)}…`;

/** Pure: why a connection that presented `served` is refused to a hub that pinned `pinned`, or null if it matches. */
export function pinRefusal(pinned: string, served: string): string | null {
  if (served === pinned) return null;
  return (
    `its TLS certificate changed: it serves ${shortPin(served)} and this hub pinned ${shortPin(pinned)} from its ` +
    'join link (a renewed certificate, or another machine at that address); if its owner renewed it, pair again: ' +
    '`leo host revoke` and `leo host invite` on the host, then `leo host remove` and `leo host add` with the new link here'
  );
}

const isLoopback = (h: string) => h === 'localhost' || h === '[::1]' || h === '::1' || /^127\./.test(h);

/**
 * Pure: whether a hub following `url` reaches this daemon's own TLS listener on `listen` (so an invite may pin the
 * certificate it serves), rather than a proxy in front of it: https to the listener's port, and not a foreign name
 * when the listener is bound to loopback (which only a proxy on the same machine could forward).
 */
export function reachesOwnListener(url: string, listen: { host: string; port: number }): boolean {
  const u = new URL(url);
  if (u.protocol !== 'https:' || Number(u.port || 443) !== listen.port) return false;
  return !isLoopback(listen.host) || isLoopback(u.hostname);
}
