import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AttemptLimiter } from '../auth/attempt-limiter.js';
import { PairingCodes } from '../auth/pairing-codes.js';
import type { TokenStore } from '../auth/token-store.js';
import { setConfigKey } from '../config/config-file.js';
import type { Config } from '../config/schema.js';
import type { ConfigChanges } from '../config/watch.js';
import type { Clock } from '../core/clock.js';
import type { LeoPaths } from '../core/home.js';
import { LeoError } from '../core/leo-error.js';
import type { Logger } from '../core/logger.js';
import { LEO_VERSION } from '../core/version.js';
import { chatEngineFor } from '../harnesses/index.js';
import type { FeatureSet } from '../core/features.js';
import type { EventBus } from '../events/bus.js';
import { pinOfPem, reachesOwnListener } from '../hosts/cert-pin.js';
import { fetchHostClient, type HostAddress, type HostClient } from '../hosts/host-client.js';
import { installationId, machineName } from '../hosts/host-identity.js';
import { HostRegistry } from '../hosts/host-registry.js';
import { hostRoutes } from '../hosts/host-routes.js';
import { hubRoutes } from '../hosts/hub-routes.js';
import { PeerTokenFiles } from '../hosts/peer-token-files.js';
import { installHostProxy } from '../hosts/proxy/host-proxy.js';
import { HostCursors } from '../hosts/relay/host-cursors.js';
import { HubFanIn } from '../hosts/relay/hub-fan-in.js';
import { HostLists } from '../hosts/lists/host-lists.js';
import { forwarder } from '../hosts/move/forwarding.js';
import type { TlsReloader } from '../http/tls-files.js';
import { AgentStore } from '../agents/agent-store.js';
import type { Database } from '../store/database.js';
import { PROTOCOL, type HostInfo } from '../wire/host.js';
import type { TokenRecord } from '../wire/tokens.js';
import type { Domain } from './domain.js';

/** How the hub reaches the hosts it follows: client.hosts as leo.yaml says now, their peer tokens, a client. */
export interface HostPeers {
  hosts(): Record<string, HostAddress>;
  token(host: string): string | null;
  connect(url: string, pin: string | undefined): HostClient;
}

/**
 * Several machines (issue 31): this daemon as a host (who it is, invites, a hub's join) and as a hub (the hosts it
 * follows, in leo.yaml's client.hosts, their peer tokens in <state>/hosts).
 */
export async function wireHosts(d: {
  app: FastifyInstance;
  db: Database;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  paths: LeoPaths;
  home: string;
  config(): Config;
  reload(reason: string): Promise<unknown>;
  configChanges: ConfigChanges;
  tokens: TokenStore;
  attempts: AttemptLimiter;
  features: FeatureSet;
  /** The daemon's own origin on its TCP listener. */
  baseUrl(): string;
  /** web.tls's pair, kept current (null over HTTP): what an invite pins. */
  certificates: TlsReloader | null;
  /** The TCP listener's address as bound (web.listen at start, with the port it got). */
  listening(): { host: string; port: number };
  revoked(record: TokenRecord): void;
}): Promise<Domain & { fanIn: HubFanIn; lists: HostLists; peers: HostPeers }> {
  const hostId = installationId(d.db, d.clock.now());
  const info = (): HostInfo => ({
    host_id: hostId,
    name: machineName(),
    version: LEO_VERSION,
    protocol: { ...PROTOCOL },
    features: d.features.list(),
  });
  await d.app.register(hostRoutes, {
    info,
    codes: new PairingCodes(d.db, d.clock, d.tokens, 'peer'),
    attempts: d.attempts,
    tokens: d.tokens,
    // `leo remote <name>` put the name a proxy (Tailscale Serve) answers on in web.allowed_hosts, over HTTPS.
    defaultUrl: () => {
      const remote = d.config().web.allowed_hosts[0];
      return remote ? `https://${remote}` : d.baseUrl();
    },
    pinFor: (url) => {
      const served = d.certificates?.current;
      return served && reachesOwnListener(url, d.listening()) ? pinOfPem(served.cert) : undefined;
    },
    revoked: d.revoked,
    logger: d.logger,
  });
  const peerTokens = new PeerTokenFiles(path.join(d.paths.stateDir, 'hosts'));
  const configured = () => d.config().client.hosts;
  const token = (name: string) => peerTokens.read(name);
  const connect = (url: string, pin: string | undefined) => fetchHostClient(url, pin ? { pin } : {});
  const fanIn = new HubFanIn({
    bus: d.bus,
    clock: d.clock,
    logger: d.logger,
    configured,
    token,
    connect,
    cursors: new HostCursors(d.db),
  });
  d.configChanges.on('change', () => fanIn.sync());
  d.features.add('hosts');
  const registry = new HostRegistry({
    db: d.db,
    clock: d.clock,
    logger: d.logger,
    tokens: peerTokens,
    configured,
    followed: fanIn,
    writeEntry: async (name, entry) => {
      const written = setConfigKey(d.paths.configFile, ['client', 'hosts', name], entry, d.home, chatEngineFor);
      if (!written.ok)
        throw new LeoError(
          500,
          `${d.paths.configFile} was not changed: ${written.errors.join('; ')}`,
          'config_unavailable',
        );
      await d.reload(entry ? `host ${name} added` : `host ${name} removed`);
    },
    connect,
    selfName: machineName,
  });
  await d.app.register(hubRoutes, { registry });
  const agents = new AgentStore(d.db);
  // Before the agent-scoped routes are registered by the domains wired after this one.
  installHostProxy(d.app, {
    hosts: configured,
    token,
    connect,
    // A send to a moved agent's old address: this hub's own records for a bare name, a host's fleet for name@host.
    moved: forwarder({
      local: (name) => agents.get(name),
      remote: (address) => fanIn.agents().find((a) => a.name === address) ?? null,
      follows: (host) => Object.hasOwn(configured(), host),
    }),
  });
  const lists = new HostLists({
    hosts: configured,
    token,
    connect,
    status: (name) => fanIn.entry(name)?.status ?? null,
  });
  return {
    fanIn,
    lists,
    peers: { hosts: configured, token, connect },
    start: () => fanIn.start(),
    stop: async () => fanIn.stop(),
  };
}
