/**
 * The network a bench's hosts live on: one Linux network namespace per host on a bridge, or, where namespaces are not
 * available, distinct loopback ports. Either way the same shape, so a test runs on both and says which it got.
 */
export interface Network {
  readonly kind: 'netns' | 'loopback';
  /** Which network this is, and on loopback why namespaces were not used: for the test's output. */
  readonly note: string;
  /** The address in the test's own process that every host reaches (where fault proxies listen). */
  readonly gateway: string;
  /** A new host on the network, its link up. `name`: a-z, 0-9 and hyphens. */
  addHost(name: string): Promise<HostLink>;
  /** Removes everything the network made. Synchronous, so a process exiting on a failure still runs it. */
  close(): void;
}

/** One host's place on the network. */
export interface HostLink {
  readonly name: string;
  /** `web.listen` for the host's daemon: fixed, so a restarted daemon is at the same address. */
  readonly listen: string;
  /** Where the other hosts and the test reach its daemon. */
  readonly url: string;
  /** Host names its daemon must accept besides loopback (`web.allowed_hosts`): its address and the gateway's. */
  readonly allowedHosts: readonly string[];
  /** The command prefix that runs a program on this host (`ip netns exec <ns>`; empty on loopback). */
  readonly exec: readonly string[];
  /** Cuts the host off: what is sent to it hangs, as behind an unplugged cable. */
  down(): void;
  up(): void;
}
