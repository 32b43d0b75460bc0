import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Exec } from '../../src/core/exec.js';
import { claudeChrome } from '../../src/harnesses/claude/chrome.js';
import { WorkerPool } from '../../src/pool/worker-pool.js';
import { Tmux } from '../../src/tmux/tmux.js';
import { runSweep, sweep } from '../../workers/sweep.js';
import * as poolWorker from '../../workers/pool-worker.js';
import { eventually, PRINTING_LOOP, privateTmux } from '../tmux/real-tmux.js';

/** Runs a chained tmux command list the way tmux does: in order, stopping at the first failure. */
function fakeTmux(args: readonly string[], world: { list: string; panes: Record<string, string> }) {
  const commands: string[][] = [[]];
  for (const a of args) a === ';' ? commands.push([]) : commands.at(-1)!.push(a);
  let stdout = '';
  for (const [cmd, ...rest] of commands) {
    if (cmd === 'list-sessions') stdout += `${world.list}\n`;
    else if (cmd === 'display-message') stdout += `${rest.at(-1)}\n`;
    else if (cmd === 'capture-pane') {
      const target = rest[rest.indexOf('-t') + 1] ?? '';
      const text = world.panes[target.slice(1, -1)];
      if (text === undefined) return { code: 1, stdout, stderr: `can't find pane: ${target}` };
      stdout += text;
    }
  }
  return { code: 0, stdout, stderr: '' };
}

describe('sweep worker task', () => {
  it('is one list-sessions, then one chained capture call for the advanced live sessions (recorded exec)', async () => {
    const calls: string[][] = [];
    const exec: Exec = async (_file, args) => {
      calls.push(args.slice(4));
      return fakeTmux(args.slice(4), {
        list: [
          '10\t14\t0\t1\t0\t\t\t5\tbusy',
          '10\t10\t0\t2\t0\t\t\t5\tquiet',
          '10\t20\t0\t3\t0\t\t\t5\tnew',
          '10\t30\t0\t4\t1\t1\t\t5\tdead',
          '10\t15\t0\t5\t0\t\t\t5\tvanished',
          '10\t16\t0\t6\t0\t\t\t5\tblank',
          '10\t17\t0\t7\t0\t\t\t5\tbusy2',
        ].join('\n'),
        panes: {
          busy: '\x1b[32mcompiling\x1b[0m 3/7\n\n',
          blank: '\n\n',
          busy2: 'writing tests\n──────\n❯ \n──────\n  ⏸ manual mode on · ? for shortcuts\n',
        },
      });
    };
    const previous = { busy: 12, quiet: 10, dead: 10, vanished: 12, blank: 10, busy2: 10 };
    // busy2 runs Claude: its input box and status line are furniture, not what it is doing.
    const out = await runSweep(new Tmux({ socketPath: '/s', exec }), {
      previous,
      harnesses: { busy2: 'claude' },
      chrome: { claude: claudeChrome },
    });
    assert.deepEqual(
      calls.map((c) => c[0]),
      ['list-sessions', 'display-message', 'display-message'],
      'one list, one chained capture call, one more for the captures after the one that failed',
    );
    assert.deepEqual(out.panes, { busy: 'compiling 3/7', blank: null, busy2: 'writing tests' });
    assert.deepEqual(
      out.sessions.map((s) => s.name),
      ['busy', 'quiet', 'new', 'dead', 'vanished', 'blank', 'busy2'],
    );
  });

  it('is exported from the pool worker module', () => {
    assert.equal(poolWorker.sweep, sweep);
  });

  describe('against real tmux', () => {
    const t = privateTmux();
    after(() => t.cleanup());

    it('lists every session and captures the printing one only once it advanced', async () => {
      assert.deepEqual(await sweep({ socketPath: t.socketPath, previous: {} }), { sessions: [], panes: {} });
      await t.tmux.newSession({ name: 'printer', cwd: t.dir, command: PRINTING_LOOP });
      await t.tmux.newSession({ name: 'quiet', cwd: t.dir, command: ['sleep', '60'] });
      const first = await sweep({ socketPath: t.socketPath, previous: {} });
      assert.deepEqual(first.sessions.map((s) => s.name).sort(), ['printer', 'quiet']);
      assert.deepEqual(first.panes, {}, 'nothing has a baseline yet, so nothing is captured');
      const previous = Object.fromEntries(first.sessions.map((s) => [s.name, s.activity]));

      const next = await eventually('a sweep that captured the printer', async () => {
        const r = await sweep({ socketPath: t.socketPath, previous });
        return 'printer' in r.panes ? r : undefined;
      });
      assert.match(String(next.panes.printer), /^tick \d+ +done$/);
      assert.ok(!('quiet' in next.panes), 'an idle session costs no capture');
    });

    it('runs on a pool thread', async () => {
      const pool = new WorkerPool({ threads: 1, maxQueue: 4 });
      try {
        const r = await pool.run('sweep', { socketPath: t.socketPath, previous: {} });
        assert.ok(r.sessions.some((s) => s.name === 'quiet'));
      } finally {
        await pool.close();
      }
    });
  });
});
