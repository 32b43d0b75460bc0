import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { HostView } from '../../../src/hosts/relay/host-view.js';
import { qualifyEvent } from '../../../src/hosts/relay/qualify.js';
import { StateSnapshot } from '../../../src/wire/fleet.js';
import { agentFixture, eventFixture } from '../../wire/event-fixtures.js';

describe('a host’s fleet as the hub holds it', () => {
  it('an agent-to-agent message relayed keeps the host’s time, so the hub’s snapshot stays one an app reads', () => {
    const view = new HostView('box');
    view.reset({
      version: 1,
      server_time: '2026-01-02T03:04:05.000Z',
      seq: 1,
      leo_version: '0',
      agents: [agentFixture()],
      tasks: [],
      recent_runs: [],
      recent_messages: [],
    });
    const event = eventFixture('agent_message');
    view.apply(qualifyEvent('agent_message', event, 'box')!);
    const data = view.data();
    assert.deepEqual(data.recent_messages, [{ from: 'den@box', to: 'fox@box', at: event.at }]);
    const snapshot = StateSnapshot.safeParse({ version: 1, server_time: event.at, seq: 2, leo_version: '0', ...data });
    assert.ok(snapshot.success, JSON.stringify(snapshot.error?.issues));
  });
});
