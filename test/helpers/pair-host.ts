import assert from 'node:assert/strict';
import { HostEntry, HostInvite } from '../../src/wire/host.js';
import type { TestDaemon } from './daemon.js';

/** Pairs `host` with `hub` as `name` through the routes `leo host invite` and `leo host add` call. */
export async function pairHost(hub: TestDaemon, host: TestDaemon, name: string): Promise<HostEntry> {
  const invite = await host.op('POST', '/api/v1/host/invites', { hub: 'hub' });
  assert.equal(invite.status, 201, invite.text);
  const added = await hub.op('POST', '/api/v1/hosts', { name, link: HostInvite.parse(invite.json.data).link });
  assert.equal(added.status, 201, added.text);
  return HostEntry.parse(added.json.data);
}
