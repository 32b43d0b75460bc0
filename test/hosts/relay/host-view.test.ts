import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { HostView } from '../../../src/hosts/relay/host-view.js';
import { qualifyEvent } from '../../../src/hosts/relay/qualify.js';
import { AgentMessage } from '../../../src/wire/fleet.js';
import { eventFixture } from '../../wire/event-fixtures.js';

describe('a hub’s view of one host', () => {
  it('lists a relayed agent-to-agent message renamed, at the time the host sent it', () => {
    const view = new HostView('box');
    const sent = eventFixture('agent_message');
    view.apply(qualifyEvent('agent_message', sent, 'box')!);
    const [listed] = view.data().recent_messages;
    assert.deepEqual(AgentMessage.parse(listed), { from: 'den@box', to: 'fox@box', at: sent.at });
  });
});
