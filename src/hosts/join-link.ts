/**
 * A host's join link, `<url>/#join=<code>`: where the hub reaches the host, and the one-time code. The code rides in
 * the fragment, as a device pairing code does, so a link opened in a browser by mistake never sends it to a server.
 */
export function joinLink(url: string, code: string): string {
  return `${url.replace(/\/+$/, '')}/#join=${encodeURIComponent(code)}`;
}

/** Pure: the host URL (no trailing slash) and code of a join link, or what is wrong with it. */
export function parseJoinLink(link: string): { url: string; code: string } | { error: string } {
  const expected =
    'expected a join link such as https://box.example.ts.net/#join=<code> (`leo host invite` prints one)';
  if (!URL.canParse(link.trim())) return { error: `not a URL: ${expected}` };
  const u = new URL(link.trim());
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { error: `only http and https hosts: ${expected}` };
  if (u.username || u.password || u.search)
    return { error: `a join link carries no user name, password or query: ${expected}` };
  const m = /^#join=([A-Za-z0-9_-]{16,128})$/.exec(u.hash);
  if (!m) return { error: `no join code in the link: ${expected}` };
  return { url: `${u.origin}${u.pathname.replace(/\/+$/, '')}`, code: m[1]! };
}
