import { HostPin } from '../wire/host.js';

/**
 * A host's join link, `<url>/#join=<code>[&pin=sha256:<hex>]`: where the hub reaches the host, the one-time code, and
 * (when the hub reaches the host's own TLS listener) the certificate the hub must find there. Code and pin ride in the
 * fragment, as a device pairing code does, so a link opened in a browser by mistake never sends them to a server.
 */
export function joinLink(url: string, code: string, pin?: string): string {
  return `${url.replace(/\/+$/, '')}/#join=${encodeURIComponent(code)}${pin ? `&pin=${pin}` : ''}`;
}

/** Pure: the host URL (no trailing slash), code and pin of a join link, or what is wrong with it. */
export function parseJoinLink(link: string): { url: string; code: string; pin?: string } | { error: string } {
  const expected =
    'expected a join link such as https://box.example.ts.net/#join=<code> (`leo host invite` prints one)';
  if (!URL.canParse(link.trim())) return { error: `not a URL: ${expected}` };
  const u = new URL(link.trim());
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `only http and https hosts: ${expected}` };
  if (u.username || u.password || u.search)
    return { error: `a join link carries no user name, password or query: ${expected}` };
  const m = /^#join=([A-Za-z0-9_-]{16,128})(?:&pin=(.*))?$/.exec(u.hash);
  if (!m) return { error: `no join code in the link: ${expected}` };
  const url = `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  if (m[2] === undefined) return { url, code: m[1]! };
  if (!HostPin.safeParse(m[2]).success)
    return { error: `the link's pin is not sha256: and 64 lower-case hex digits (copy the whole link): ${expected}` };
  if (u.protocol !== 'https:') return { error: `a pinned link is https (the pin is a TLS certificate's): ${expected}` };
  return { url, code: m[1]!, pin: m[2] };
}
