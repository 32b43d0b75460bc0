import { namespacesUnavailable } from './ip-command.js';
import { openLoopbackNetwork } from './loopback-network.js';
import { openNetnsNetwork } from './netns-network.js';
import type { Network } from './network.js';

/** Namespaces when this process may make them, else loopback; `LEO_BENCH_NETWORK=loopback` asks for loopback. */
export function openNetwork(): Network {
  const unavailable = namespacesUnavailable();
  if (unavailable) return openLoopbackNetwork(unavailable);
  try {
    return openNetnsNetwork();
  } catch (err) {
    return openLoopbackNetwork((err as Error).message);
  }
}
