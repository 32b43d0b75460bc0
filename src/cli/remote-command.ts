import { addToConfigList } from '../config/config-file.js';
import { loadConfigFile } from '../config/load.js';
import { listenOrigin, parseListen } from '../config/schema.js';
import { resolvePaths, userHome } from '../core/home.js';
import { chatEngineFor } from '../harnesses/index.js';
import { printLink, requestLink } from './pair-command.js';

/**
 * Whether `host` is a DNS name a browser can be sent to: dot-separated labels of letters, digits and inner hyphens,
 * 63 bytes each, 253 in all, and a last label that is not all digits (so an IP address is refused). Pure.
 */
export function dnsNameProblem(host: string): string | null {
  if (host.length === 0 || host.length > 253) return 'it must be 1 to 253 characters long';
  const labels = host.split('.');
  const bad = labels.find((l) => !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l));
  if (bad !== undefined)
    return bad === ''
      ? 'it has an empty label'
      : `the label ${JSON.stringify(bad)} is not letters, digits and inner hyphens (at most 63)`;
  if (/^\d+$/.test(labels.at(-1)!)) return 'it ends in a number (an IP address is no DNS name)';
  return null;
}

/** What to run so `https://<host>/` reaches the daemon at `upstream` (its own origin): Tailscale Serve, or a proxy. */
export function remoteInstructions(host: string, upstream: URL): string {
  const target = upstream.origin;
  // Tailscale Serve checks an https upstream's certificate unless told the daemon's own one is fine.
  const tsTarget = upstream.protocol === 'https:' ? target.replace(/^https:/, 'https+insecure:') : target;
  // Caddy checks an https upstream too; the daemon's certificate names itself, not 127.0.0.1's proxy.
  const caddy =
    upstream.protocol === 'https:'
      ? [
          `    reverse_proxy ${target} {`,
          '      transport http {',
          '        tls_insecure_skip_verify',
          '      }',
          '    }',
        ]
      : [`    reverse_proxy ${upstream.host}`];
  return [
    `Leo Web answers at ${target}. To reach it from your phone as https://${host}/, put one of these in front of it:`,
    '',
    `Tailscale Serve (on this machine; ${host} is its MagicDNS name, the phone is on the same tailnet):`,
    `  tailscale serve --bg --https=443 ${tsTarget}`,
    '',
    `Caddy (a Caddyfile; Caddy gets the certificate for ${host}):`,
    `  ${host} {`,
    ...caddy,
    '  }',
    '',
    'nginx (a server block; the event stream needs buffering off, /ws an upgrade):',
    '  server {',
    '    listen 443 ssl;',
    `    server_name ${host};`,
    `    ssl_certificate /etc/ssl/${host}.crt;`,
    `    ssl_certificate_key /etc/ssl/${host}.key;`,
    '    location / {',
    `      proxy_pass ${target};`,
    '      proxy_http_version 1.1;',
    '      proxy_set_header Host $host;',
    '      proxy_set_header Upgrade $http_upgrade;',
    '      proxy_set_header Connection $http_connection;',
    '      proxy_buffering off;',
    '      proxy_read_timeout 1h;',
    '      client_max_body_size 0; # uploads are capped by chat.attachment_max_bytes',
    '    }',
    '  }',
    '',
  ].join('\n');
}

/**
 * `leo remote <host>`: lets the daemon answer to `host` (web.allowed_hosts in leo.yaml, comments and mode kept; the
 * daemon reloads it), prints what to run in front of it, and a pairing link with its QR code at https://<host>/.
 */
export async function runRemoteCommand(rawHost: string, o: { device?: string; fleet: boolean }): Promise<void> {
  const host = rawHost.toLowerCase().replace(/\.$/, '');
  const problem = dnsNameProblem(host);
  if (problem) return fail(`${JSON.stringify(rawHost)} is not a DNS name: ${problem}`);
  const paths = resolvePaths();
  const edited = addToConfigList(paths.configFile, ['web', 'allowed_hosts'], host, userHome(), chatEngineFor);
  if (!edited.ok) return fail(`${paths.configFile} was not changed:\n  ${edited.errors.join('\n  ')}`);
  console.log(
    edited.added
      ? `Added ${host} to web.allowed_hosts in ${paths.configFile}.`
      : `${host} is already in web.allowed_hosts in ${paths.configFile}.`,
  );
  let issued;
  try {
    issued = await requestLink(o.device ?? `phone via ${host}`, { origin: `https://${host}` }, o.fleet);
  } catch (err) {
    // No daemon to ask: the set-up can still be printed from leo.yaml's web.listen, when it names a fixed port.
    const configured = await configuredOrigin(paths.configFile);
    if (configured) console.log(`\n${remoteInstructions(host, configured)}`);
    return fail(`${(err as Error).message}; run \`leo remote ${host}\` again once it runs, for the pairing link`);
  }
  console.log('');
  console.log(remoteInstructions(host, new URL(issued.daemonUrl)));
  await printLink(issued);
}

/** Where leo.yaml says the daemon listens, or null when it cannot say (a bad file, port 0: any free port). */
async function configuredOrigin(file: string): Promise<URL | null> {
  const loaded = await loadConfigFile(file, userHome(), chatEngineFor);
  const listen = loaded.ok ? parseListen(loaded.config.web.listen) : undefined;
  return listen && listen.port !== 0 && loaded.ok
    ? new URL(listenOrigin(listen, loaded.config.web.tls !== undefined))
    : null;
}

function fail(message: string): void {
  console.error(`leo: ${message}`);
  process.exit(1);
}
