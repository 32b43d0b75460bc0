/**
 * The link that pairs a browser. The code rides in the fragment, which a browser never sends to a server, so it stays
 * out of request lines, proxies' logs and Referer headers; the app reads it and erases it from the address bar.
 */
export function pairingLink(appUrl: string, code: string): string {
  return `${appUrl.replace(/\/+$/, '')}/#pair=${encodeURIComponent(code)}`;
}
