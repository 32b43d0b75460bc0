import type { Config } from './schema.js';

/**
 * What a reload changed that only a restart applies, one warning each: the listener, the request timeout and the
 * pool are built once at start-up, and HTTP and HTTPS are different servers.
 */
export function restartWarnings(next: Config, prev: Config): string[] {
  const warnings: string[] = [];
  if (next.web.listen !== prev.web.listen) warnings.push('web.listen changed: restart the daemon to apply it');
  if (next.web.request_timeout !== prev.web.request_timeout)
    warnings.push('web.request_timeout changed: restart the daemon to apply it');
  if (next.pool.threads !== prev.pool.threads) warnings.push('pool.threads changed: restart the daemon to apply it');
  if (Boolean(next.web.tls) !== Boolean(prev.web.tls))
    warnings.push('web.tls was added or removed: restart the daemon to switch between HTTP and HTTPS');
  return warnings;
}
