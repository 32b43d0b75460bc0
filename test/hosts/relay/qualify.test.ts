import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { qualifyEvent, qualifySnapshot } from '../../../src/hosts/relay/qualify.js';
import { EVENT_PAYLOADS } from '../../../src/wire/events.js';
import { agentFixture, eventFixture, EVENT_TYPES, messageFixture } from '../../wire/event-fixtures.js';

describe('a followed host’s events, as the hub re-publishes them', () => {
  it('renames every agent to name@host, sets host and drops the host’s own seq and time', () => {
    const spawned = qualifyEvent('agent_spawned', eventFixture('agent_spawned'), 'box');
    assert.equal(spawned?.type, 'agent_spawned');
    assert.deepEqual(spawned?.fields, { agent: agentFixture({ name: 'den@box', host: 'box' }), host: 'box' });
    const read = qualifyEvent('chat.read', eventFixture('chat.read'), 'box');
    assert.deepEqual(read?.fields, {
      agent: 'den@box',
      read_up_to: '01JAAAAAAAAAAAAAAAAAAAAAAA',
      unread: 0,
      host: 'box',
    });
    const msg = qualifyEvent('chat.message', eventFixture('chat.message'), 'box');
    assert.deepEqual(msg?.fields, { message: messageFixture({ agent: 'den@box' }), host: 'box' });
    const pair = qualifyEvent('agent_message', eventFixture('agent_message'), 'box');
    assert.deepEqual(pair?.fields, { from: 'den@box', to: 'fox@box', host: 'box' });
    const run = qualifyEvent('task_run_failed', eventFixture('task_run_failed'), 'box');
    assert.equal((run?.fields as { run: { host: string } }).run.host, 'box');
  });

  it('every relayed type still fits the hub’s own event table once stamped', () => {
    for (const type of EVENT_TYPES) {
      const q = qualifyEvent(type, eventFixture(type), 'box');
      if (type === 'host_status' || type === 'host_state' || type === 'move_progress') {
        assert.equal(q, null, `${type} is the hub's own, never relayed`);
        continue;
      }
      assert.ok(q, type);
      const stamped = EVENT_PAYLOADS[type].safeParse({ seq: 1, at: '2026-01-01T00:00:00Z', ...q.fields });
      assert.ok(stamped.success, type);
      assert.equal((stamped.data as { host?: string }).host, 'box');
      const text = JSON.stringify(q.fields);
      assert.doesNotMatch(text, /"(agent|to|from|name)":"(den|fox)"/, `${type} left a bare name: ${text}`);
    }
  });

  it('drops a type this hub does not know and data its schema refuses', () => {
    assert.equal(qualifyEvent('agent_teleported', { agent: 'den' }, 'box'), null);
    assert.equal(qualifyEvent('chat.read', { agent: 42 }, 'box'), null);
    assert.equal(qualifyEvent('toString', {}, 'box'), null);
  });

  it('renames a snapshot’s agents, tasks, runs and agent-to-agent messages', () => {
    const s = qualifySnapshot(
      {
        version: 1,
        server_time: 'x',
        seq: 3,
        leo_version: '0',
        agents: [agentFixture()],
        tasks: [],
        recent_runs: [],
        recent_messages: [{ to: 'den', at: 'x' }],
      },
      'box',
    );
    assert.deepEqual(
      s.agents.map((a) => [a.name, a.host]),
      [['den@box', 'box']],
    );
    assert.deepEqual(s.recent_messages, [{ to: 'den@box', at: 'x' }]);
  });
});
