import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { formatLocal, parseReminderTime, ReminderError } from '../../src/chat/reminders.js';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { killTmuxServer, startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;
const NOW = Date.parse('2026-10-13T12:00:00Z');
const HOUR = 3600_000;

describe('reminder times', () => {
  it('need an offset, the future and at most a year', () => {
    assert.equal(parseReminderTime('2026-10-14T09:00:00-04:00', NOW), Date.parse('2026-10-14T13:00:00Z'));
    assert.equal(parseReminderTime('2026-10-13T12:00:01Z', NOW), NOW + 1000);
    const bad: [string, RegExp][] = [
      ['2026-10-14T09:00:00', /offset/],
      ['tomorrow', /RFC 3339/],
      ['2026-10-13T11:59:59Z', /future/],
      ['2026-10-13T12:00:00Z', /future/],
      ['2027-10-15T12:00:00Z', /a year/],
      ['2026-02-30T09:00:00Z', /real time|RFC/],
    ];
    for (const [at, why] of bad)
      assert.throws(
        () => parseReminderTime(at, NOW),
        (e: unknown) => e instanceof ReminderError && why.test(e.message),
        at,
      );
  });

  it('the late line reads in daemon local time', () => {
    assert.match(formatLocal(Date.parse('2026-10-14T09:00:00Z')), /^Wed 14 Oct 2026 \d\d:\d\d \S+$/);
  });
});

describe('leo_chat_schedule over MCP, across restarts', () => {
  it('schedules, lists and cancels per thread; fires once, on time or late after downtime', async () => {
    const clock = new ManualClock(NOW);
    const t = await startTestDaemon({ config: CONFIG, clock });
    const home = t.home;
    const env = { ...process.env, LEO_HOME: home, LEO_USER_HOME: home };
    let daemon: Daemon = t.daemon;
    try {
      for (const name of ['den', 'other'])
        await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
          token: daemon.operatorToken,
          body: { template: 'cat', name },
        });
      const tool = async (agent: string, name: string, args: Record<string, unknown>) => {
        const c = new Client({ name: 'test', version: '1' });
        await c.connect(
          new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${daemon.port}/api/agent/${agent}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${daemon.agentToken}` } },
          }),
        );
        const r = (await c.callTool({ name, arguments: args })) as {
          isError?: boolean;
          structuredContent?: any;
          content: any;
        };
        await c.close();
        return r;
      };
      const thread = async () =>
        (
          await request({ socketPath: daemon.paths.socketFile }, 'GET', '/api/v1/chat/den/messages')
        ).json.data.messages.map((m: { text: string }) => m.text);

      const soon = await tool('den', 'leo_chat_schedule', { text: 'stand-up', at: '2026-10-13T13:00:00Z' });
      assert.equal(soon.isError, undefined, JSON.stringify(soon.content));
      await tool('den', 'leo_chat_schedule', { text: 'review', at: '2026-10-13T15:00:00+00:00' });
      const drop = await tool('den', 'leo_chat_schedule', { text: 'never', at: '2026-10-13T16:00:00Z' });
      assert.equal((await tool('den', 'leo_chat_schedule', { text: 'x', at: '2026-10-13T09:00:00' })).isError, true);
      assert.deepEqual(
        (await tool('den', 'leo_chat_schedule_list', {})).structuredContent.reminders.map(
          (r: { text: string }) => r.text,
        ),
        ['stand-up', 'review', 'never'],
      );
      assert.deepEqual((await tool('other', 'leo_chat_schedule_list', {})).structuredContent.reminders, []);
      const foreign = await tool('other', 'leo_chat_schedule_cancel', { id: drop.structuredContent.id });
      assert.equal(foreign.isError, true, "another thread's reminder");
      assert.deepEqual(
        (await tool('den', 'leo_chat_schedule_cancel', { id: drop.structuredContent.id })).structuredContent,
        {
          id: drop.structuredContent.id,
          cancelled: true,
        },
      );
      assert.match(
        JSON.stringify((await tool('den', 'leo_chat_schedule_cancel', { id: drop.structuredContent.id })).content),
        /cancelled/,
      );

      clock.advance(HOUR);
      assert.deepEqual(
        (await thread()).filter((x: string) => x.startsWith('stand-up')),
        ['stand-up'],
        'on time: no late line',
      );
      assert.match(
        JSON.stringify((await tool('den', 'leo_chat_schedule_cancel', { id: soon.structuredContent.id })).content),
        /fired/,
      );

      // Down while "review" comes due; it fires once at start, marked late; a second restart fires nothing more.
      await daemon.close();
      for (let round = 0; round < 2; round++) {
        daemon = await startDaemon({ env, clock: new ManualClock(NOW + 5 * HOUR), logger: createLogger('silent') });
        const texts = await thread();
        assert.equal(texts.filter((x: string) => x.startsWith('review')).length, 1, `round ${round}`);
        assert.match(
          texts.find((x: string) => x.startsWith('review')),
          /^review\n_\(late — scheduled for \w{3} 13 Oct 2026 \d\d:00 \S+\)_$/,
        );
        assert.equal(
          texts.some((x: string) => x.startsWith('never')),
          false,
        );
        await daemon.close();
      }
    } finally {
      killTmuxServer(home);
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
