import { setTimeout as sleep } from 'node:timers/promises';
import type { HostBench } from '../../test/helpers/hosts/bench.js';
import type { HostDaemon } from '../../test/helpers/hosts/host-daemon.js';
import { StateSnapshot } from '../../src/wire/fleet.js';

/** Waits until the hub lists every `agents` (name@host) with every host online. */
export async function following(hub: HostDaemon, agents: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const s = await hub.get('/api/v1/state', StateSnapshot);
    const names = new Set(s.agents.map((a) => a.name));
    if (agents.every((a) => names.has(a)) && s.hosts?.every((h) => h.status === 'online')) return;
    if (Date.now() > deadline)
      throw new Error(`the hub did not list ${agents.join(', ')} within 60 s\n${hub.logTail()}`);
    await sleep(200);
  }
}

/**
 * The hosts benchmarks' machines on `bench`: a hub, then box and attic with `config` (more leo.yaml); prints the
 * network and answers the link's name for the tables.
 */
export async function hubBoxAttic(bench: HostBench, config: string) {
  console.log(`network: ${bench.network.note}`);
  const link = bench.network.kind === 'netns' ? 'veth' : 'loopback';
  // One after another: three daemons starting at once on a busy machine can miss the bench's 20 s readiness wait.
  const hub = await bench.host('hub');
  const box = await bench.host('box', config);
  const attic = await bench.host('attic', config);
  return { link, hub, box, attic };
}
