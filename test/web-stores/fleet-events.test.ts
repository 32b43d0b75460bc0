import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import { parseEvent, type FleetEvent } from '../../src/web/api/events.js';
import { agents, applyEvent, applySnapshot, applyThreads, unread, upsertAgent } from '../../src/web/stores/fleet.js';
import type { EventType } from '../../src/wire/event-types.js';
import type { EventFields } from '../../src/wire/events.js';
import { agentFixture, EVENT_TYPES, eventFixture } from '../wire/event-fixtures.js';

/** The event as the app's stream reader hands it on: parsed from its frame's name and JSON. */
function received<T extends EventType>(type: T, over: Partial<EventFields<T>> = {}): FleetEvent {
  const event = parseEvent(type, JSON.parse(JSON.stringify(eventFixture(type, over))));
  assert.ok(event, `${type} parses`);
  return event;
}

describe("Leo Web's fleet store over the event table's fixtures", () => {
  beforeEach(() => {
    applySnapshot({
      version: 1,
      server_time: '2026-01-02T03:04:05.000Z',
      seq: 0,
      leo_version: '0.1.0',
      agents: [agentFixture()],
      tasks: [],
      recent_runs: [],
      recent_messages: [],
    });
    applyThreads([]);
  });

  it('the stream reader takes every type of the table, and drops unknown types and bad data', () => {
    for (const type of EVENT_TYPES) assert.equal(received(type).type, type);
    assert.equal(parseEvent('agent_rebooted', {}), null);
    assert.equal(parseEvent('constructor', {}), null);
    assert.equal(parseEvent('chat.read', { agent: 'den' }), null);
  });

  it('agent_state_changed patches the agent with what the lifecycle moved, without a refetch', () => {
    assert.equal(applyEvent(received('agent_state_changed')), null);
    const den = agents.value.get('den')!;
    assert.equal(den.status, 'stopped');
    assert.equal(den.wake_on_message, true);
    assert.equal(den.started_at, null);
    assert.equal(den.restarts, 2);
    assert.equal(den.stop_reason, 'it kept exiting at start');
    assert.equal(den.display_name, 'Den');
    assert.deepEqual(den.environments, []);
  });

  it('an event about an agent the fleet does not hold changes nothing', () => {
    const before = agents.value;
    applyEvent(received('agent_state_changed', { agent: 'ghost' }));
    assert.equal(agents.value, before);
  });

  it('chat.message and chat.updated ask for the threads again; agent_stopped for the state', () => {
    assert.equal(applyEvent(received('chat.message')), 'threads');
    assert.equal(applyEvent(received('chat.updated')), 'threads');
    assert.equal(applyEvent(received('agent_stopped')), 'state');
    assert.equal(agents.value.get('den')!.status, 'stopped');
  });

  it("chat.read sets the thread's unread count at once", () => {
    applyEvent(received('chat.read', { unread: 3 }));
    assert.equal(unread.value.get('den'), 3);
    applyEvent(received('chat.read'));
    assert.equal(unread.value.get('den'), 0);
  });

  it('activity, usage, a failed turn, a held terminal and the change summary land on the agent', () => {
    applyEvent(received('agent_activity'));
    applyEvent(received('agent_usage'));
    applyEvent(received('agent_turn_error'));
    applyEvent(received('agent_needs_input'));
    applyEvent(received('agent_changes'));
    const den = agents.value.get('den')!;
    assert.equal(den.activity, 'working');
    assert.deepEqual(den.current_action, { kind: 'pane', detail: 'Reading files' });
    assert.equal(den.usage?.turns, 1);
    assert.equal(den.turn_error?.message, 'the provider refused the key');
    assert.equal(den.needs_input?.reason, 'dialog');
    assert.deepEqual(den.changes, { files: 3, insertions: 120, deletions: 4, ahead: 2, behind: 0 });
  });

  it('an operation’s answer replaces the agent but keeps its change summary, which only a change sends again', () => {
    applyEvent(received('agent_changes'));
    upsertAgent(agentFixture({ status: 'stopped' }));
    const den = agents.value.get('den')!;
    assert.equal(den.status, 'stopped');
    assert.equal(den.changes?.files, 3);
  });
});
