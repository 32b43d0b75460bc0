import { setTimeout as sleep } from 'node:timers/promises';
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
