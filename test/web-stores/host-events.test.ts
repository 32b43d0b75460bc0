import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { parseEvent, type FleetEvent } from '../../src/web/api/events.js';
import { applyEvent, applySnapshot, applyThreads } from '../../src/web/stores/fleet.js';
import { fleetGroups, hostFilter, shownRows, THIS_MACHINE } from '../../src/web/stores/fleet-groups.js';
import {
  applyHostEvent,
  applyHosts,
  downHosts,
  hostDownReason,
  hosts,
  unreachable,
} from '../../src/web/stores/hosts.js';
import type { EventType } from '../../src/wire/event-types.js';
import type { EventFields } from '../../src/wire/events.js';
import type { HostEntry } from '../../src/wire/host.js';
import { agentFixture, eventFixture } from '../wire/event-fixtures.js';

function received<T extends EventType>(type: T, over: Partial<EventFields<T>> = {}): FleetEvent {
  const event = parseEvent(type, JSON.parse(JSON.stringify(eventFixture(type, over))));
  assert.ok(event, `${type} parses`);
  return event;
}

const box: HostEntry = {
  name: 'box',
  url: 'http://127.0.0.1:7001',
  status: 'online',
  last_seen: '2026-01-02T03:00:00.000Z',
  version: '0.1.0',
  host_id: '01JHOST',
  rtt_ms: 3,
};
const attic: HostEntry = { ...box, name: 'attic', status: 'offline', error: 'connect ECONNREFUSED' };

function hubState(list: HostEntry[] | undefined) {
  applySnapshot({
    version: 1,
    server_time: '2026-01-02T03:04:05.000Z',
    seq: 0,
    leo_version: '0.1.0',
    agents: [
      agentFixture({ name: 'home', display_name: 'Home' }),
      agentFixture({ name: 'den@box', host: 'box' }),
      agentFixture({ name: 'fox@attic', display_name: 'Fox', host: 'attic' }),
    ],
    tasks: [],
    recent_runs: [],
    recent_messages: [],
    ...(list ? { hosts: list } : {}),
  });
  applyHosts(list);
}

describe("Leo Web's hosts store over the event table's fixtures", () => {
  beforeEach(() => {
    hostFilter.value = null;
    applyThreads([]);
    hubState([box, attic]);
  });

  it('a daemon that is no hub has no hosts, and its fleet is one group with no header', () => {
    hubState(undefined);
    assert.equal(hosts.value, null);
    assert.equal(fleetGroups.value.length, 1);
    assert.equal(fleetGroups.value[0]!.host, null);
    assert.equal(fleetGroups.value[0]!.rows.length, 3);
  });

  it('groups the fleet: this machine first, then each host by name', () => {
    assert.deepEqual(
      fleetGroups.value.map((g) => [g.host?.name ?? null, g.rows.map((r) => r.name)]),
      [
        [null, ['home']],
        ['attic', ['fox@attic']],
        ['box', ['den@box']],
      ],
    );
    assert.deepEqual(
      shownRows.value.map((r) => r.name),
      ['home', 'fox@attic', 'den@box'],
      'j/k walk the rows as shown',
    );
  });

  it('the filter keeps one machine; one since removed shows them all', () => {
    hostFilter.value = 'box';
    assert.deepEqual(
      fleetGroups.value.map((g) => g.host?.name),
      ['box'],
    );
    hostFilter.value = THIS_MACHINE;
    assert.deepEqual(
      fleetGroups.value.map((g) => g.host?.name ?? null),
      [null],
    );
    hostFilter.value = 'gone';
    assert.equal(fleetGroups.value.length, 3);
  });

  it('host_status patches its host at once, with no refetch, and its agents follow', () => {
    assert.equal(unreachable('den@box'), null);
    assert.match(unreachable('fox@attic')!, /^attic is offline since /);
    assert.equal(unreachable('home'), null, 'this machine is never unreachable');

    const stale = received('host_status');
    assert.equal(applyHostEvent(stale), null);
    assert.equal(applyEvent(stale), null, 'the fleet store asks for nothing either');
    const now = hosts.value!.find((h) => h.name === 'box')!;
    assert.equal(now.status, 'stale');
    assert.equal(now.error, 'nothing heard for 40000 ms');
    assert.equal(now.url, box.url, 'what the event does not carry stays');
    assert.match(unreachable('den@box')!, /^box has been silent since /);

    applyHostEvent(received('host_status', { status: 'online', error: null }));
    const back = hosts.value!.find((h) => h.name === 'box')!;
    assert.equal(back.status, 'online');
    assert.equal('error' in back, false);
    assert.deepEqual([...downHosts.value.keys()], ['attic']);
  });

  it('an event about a host the store does not hold asks for the state', () => {
    assert.equal(applyHostEvent(received('host_status', { host: 'new' })), 'state');
    assert.equal(applyHostEvent(received('host_state', { host: 'new' })), 'state');
  });

  it("host_state replaces the host's agents; with none (a removed host) it asks for the state", () => {
    assert.equal(applyHostEvent(received('host_state')), null);
    assert.equal(applyEvent(received('host_state')), 'threads', 'its threads may have moved with no event');
    assert.deepEqual(
      fleetGroups.value.find((g) => g.host?.name === 'box')!.rows.map((r) => r.name),
      ['den@box'],
    );
    const empty = received('host_state', { agents: [] });
    assert.equal(applyHostEvent(empty), 'state');
    applyEvent(empty);
    assert.deepEqual(fleetGroups.value.find((g) => g.host?.name === 'box')!.rows, [], 'the group stays, empty');
  });

  it('says why in words, and nothing for an online host', () => {
    assert.equal(hostDownReason(box), null);
    assert.equal(hostDownReason({ ...attic, last_seen: null }), 'attic is offline');
  });
});
