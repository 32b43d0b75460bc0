/** Splits `web.listen` ("127.0.0.1:8370", "[::1]:8370") into what net.Server.listen takes. */
export function parseListen(listen: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(listen.trim());
  if (!m) throw new Error(`web.listen: expected host:port, got ${JSON.stringify(listen)}`);
  return { host: (m[1] ?? m[2])!, port: Number(m[3]) };
}
