import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LIST_SESSIONS_FORMAT, parseListSessions } from '../../src/tmux/list-format.js';

// Recorded from tmux 3.3a: a printing session, one whose command exited 3, one killed by SIGKILL, an attached one.
const RECORDED = [
  '1795987998\t1795988018\t0\t12404\t0\t\t\t1795987990\tleo-den',
  '1795987998\t1795987998\t0\t12413\t1\t3\t\t1795987997\tdead',
  '1795988016\t1795988016\t0\t12509\t1\t\t9\t1795988015\tsig',
  '1795988100\t1795988042\t2\t12600\t0\t\t\t1795988040\tattached',
  '',
].join('\n');

describe('list-sessions format', () => {
  it('is tab-separated with the session name last', () => {
    assert.equal(
      LIST_SESSIONS_FORMAT,
      '#{session_activity}\t#{window_activity}\t#{session_attached}\t#{pane_pid}\t#{pane_dead}\t#{pane_dead_status}\t#{pane_dead_signal}\t#{session_created}\t#{session_name}',
    );
  });

  it('parses recorded output', () => {
    assert.deepEqual(parseListSessions(RECORDED), [
      {
        name: 'leo-den',
        activity: 1795988018,
        attached: 0,
        panePid: 12404,
        paneDead: false,
        deadStatus: null,
        deadSignal: null,
        created: 1795987990,
      },
      {
        name: 'dead',
        activity: 1795987998,
        attached: 0,
        panePid: 12413,
        paneDead: true,
        deadStatus: 3,
        deadSignal: null,
        created: 1795987997,
      },
      {
        name: 'sig',
        activity: 1795988016,
        attached: 0,
        panePid: 12509,
        paneDead: true,
        deadStatus: null,
        deadSignal: 9,
        created: 1795988015,
      },
      {
        name: 'attached',
        activity: 1795988100,
        attached: 2,
        panePid: 12600,
        paneDead: false,
        deadStatus: null,
        deadSignal: null,
        created: 1795988040,
      },
    ]);
  });

  it('activity is the later of session and window activity (output moves only the window one)', () => {
    const [out] = parseListSessions('100\t250\t0\t1\t0\t\t\t1\ta\n');
    assert.equal(out?.activity, 250);
    const [input] = parseListSessions('300\t250\t1\t1\t0\t\t\t1\ta\n');
    assert.equal(input?.activity, 300);
  });

  it('keeps everything after the eighth tab as the name', () => {
    assert.equal(parseListSessions('1\t1\t0\t1\t0\t\t\t1\tname\twith\ttabs')[0]?.name, 'name\twith\ttabs');
  });

  it('skips lines that do not have the shape, and empty output is no sessions', () => {
    assert.deepEqual(parseListSessions(''), []);
    assert.deepEqual(parseListSessions('\n\n'), []);
    assert.deepEqual(parseListSessions('garbage\nx\ty\n'), []);
    assert.deepEqual(parseListSessions('abc\tdef\t0\t1\t0\t\t\t1\tname'), []);
    assert.deepEqual(parseListSessions('1\t1\t0\t1\t0\t\t\t1\t'), []);
  });

  it('a dead status is read only for a dead pane, and a missing pid or creation time is null', () => {
    const [s] = parseListSessions('5\t5\t0\t\t0\t7\t\t\tx');
    assert.equal(s?.panePid, null);
    assert.equal(s?.deadStatus, null);
    assert.equal(s?.created, null);
  });
});
