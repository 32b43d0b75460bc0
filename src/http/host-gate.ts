/**
 * DNS-rebinding defence for the TCP listener: a page on evil.example that resolves its name to 127.0.0.1 still sends
 * `Host: evil.example`, and a browser always sends its page's Origin. Only loopback names and configured hosts pass.
 */
const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function hostnameOf(hostHeader: string): string | null {
  const h = hostHeader.trim().toLowerCase();
  if (!h) return null;
  if (h.startsWith('[')) {
    const end = h.indexOf(']');
    return end > 0 && (h.length === end + 1 || /^:\d+$/.test(h.slice(end + 1))) ? h.slice(0, end + 1) : null;
  }
  const m = /^([a-z0-9.-]+)(?::(\d+))?$/.exec(h);
  return m ? m[1]! : null;
}

export function isAllowedHostname(hostname: string, allowed: readonly string[]): boolean {
  const h = hostname.toLowerCase();
  return LOOPBACK.has(h) || allowed.some((a) => a.toLowerCase() === h);
}

export function checkHostAndOrigin(
  host: string | undefined,
  origin: string | undefined,
  allowed: readonly string[],
): string | null {
  const hostname = host === undefined ? null : hostnameOf(host);
  if (!hostname || !isAllowedHostname(hostname, allowed)) return `Host ${JSON.stringify(host ?? '')} is not allowed`;
  if (origin === undefined) return null;
  let originHost: string;
  try {
    const u = new URL(origin);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
    originHost = u.hostname;
  } catch {
    return `Origin ${JSON.stringify(origin)} is not allowed`;
  }
  return isAllowedHostname(originHost, allowed) ? null : `Origin ${JSON.stringify(origin)} is not allowed`;
}
