import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parseReminderTime, ReminderError } from '../../../src/chat/reminders/reminders.js';
import { formatLocal } from '../../../src/core/local-time.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../../src/daemon/daemon.js';
import { killTmuxServer, startTestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;
const NOW = Date.parse('2026-10-13T12:00:00Z');
const HOUR = 3600_000;
const REMINDERS_JS = new URL('../../../src/chat/reminders/reminders.js', import.meta.url).href;
const LOCAL_TIME_JS = new URL('../../../src/core/local-time.js', import.meta.url).href;

describe('reminder times', () => {
  it('need seconds, an offset, the future and at most a calendar year', () => {
    assert.equal(parseReminderTime('2026-10-14T09:00:00-04:00', NOW), Date.parse('2026-10-14T13:00:00Z'));
    assert.equal(parseReminderTime('2026-10-13T12:00:01Z', NOW), NOW + 1000);
    assert.equal(parseReminderTime('2026-10-13T12:00:00.5Z', NOW), NOW + 500);
    const bad: [string, RegExp][] = [
      ['2026-10-14T09:00:00', /offset/],
      ['2026-10-14T09:00-04:00', /seconds/],
      ['2026-10-14T09:00Z', /seconds/],
      ['tomorrow', /RFC 3339/],
      ['2026-10-13T11:59:59Z', /future/],
      ['2026-10-13T12:00:00Z', /future/],
      ['2026-02-30T09:00:00Z', /real time|RFC/],
    ];
    for (const [at, why] of bad)
      assert.throws(
        () => parseReminderTime(at, NOW),
        (e: unknown) => e instanceof ReminderError && why.test(e.message),
        at,
      );
  });

  it('"a year out" is the same time a calendar year later, in several zones, 29 February included', () => {
    // Run in a child per zone: the calendar year is the daemon's local one.
    const cases = [
      ['UTC', '2026-10-13T12:00:00Z', '2027-10-13T12:00:00Z'],
      ['America/New_York', '2026-10-13T12:00:00-04:00', '2027-10-13T12:00:00-04:00'],
      ['Australia/Sydney', '2026-10-13T12:00:00+11:00', '2027-10-13T12:00:00+11:00'],
      ['UTC', '2028-02-29T12:00:00Z', '2029-02-28T12:00:00Z'],
    ];
    for (const [tz, now, limit] of cases) {
      const out = inZone(
        tz!,
        `const now = Date.parse(${JSON.stringify(now)}), limit = Date.parse(${JSON.stringify(limit)});
         const ok = (at) => { try { m.parseReminderTime(new Date(at).toISOString(), now); return true } catch { return false } };
         console.log(JSON.stringify([m.oneYearAfter(now) === limit, ok(limit), ok(limit + 1000)]));`,
      );
      assert.deepEqual(JSON.parse(out), [true, true, false], `${tz} from ${now}`);
    }
  });

  it('the late line reads in the daemon local time zone, with its abbreviation and English month names', () => {
    const cases: [string, string, string][] = [
      ['America/New_York', '2026-10-14T13:00:00Z', 'Wed 14 Oct 2026 09:00 EDT'],
      ['America/New_York', '2026-01-14T14:00:00Z', 'Wed 14 Jan 2026 09:00 EST'],
      ['America/Los_Angeles', '2026-09-15T16:05:00Z', 'Tue 15 Sep 2026 09:05 PDT'],
      ['Europe/London', '2026-09-15T08:00:00Z', 'Tue 15 Sep 2026 09:00 BST'],
      ['Europe/London', '2026-12-01T09:00:00Z', 'Tue 1 Dec 2026 09:00 GMT'],
      ['Europe/Berlin', '2026-07-01T07:30:00Z', 'Wed 1 Jul 2026 09:30 CEST'],
      ['Asia/Kolkata', '2026-10-14T03:30:00Z', 'Wed 14 Oct 2026 09:00 IST'],
      ['Australia/Sydney', '2026-10-13T22:00:00Z', 'Wed 14 Oct 2026 09:00 AEDT'],
      ['Asia/Tokyo', '2026-10-14T00:00:00Z', 'Wed 14 Oct 2026 09:00 JST'],
      ['Asia/Shanghai', '2026-10-14T01:00:00Z', 'Wed 14 Oct 2026 09:00 GMT+8'],
      ['UTC', '2026-10-14T09:00:00Z', 'Wed 14 Oct 2026 09:00 UTC'],
    ];
    for (const [tz, at, want] of cases) {
      // The default zone is the process's own: TZ, as a daemon started with it would have.
      assert.equal(inZone(tz, `console.log(lt.formatLocal(Date.parse(${JSON.stringify(at)})))`), want, `TZ=${tz}`);
      assert.equal(formatLocal(Date.parse(at), tz), want, `${tz} (injected)`);
    }
  });
});

/**
 * Runs `code` (with the reminders module as `m`, core/local-time as `lt`) in a node child whose TZ is `tz`; returns its
 * stdout line.
 */
function inZone(tz: string, code: string): string {
  const r = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import * as m from ${JSON.stringify(REMINDERS_JS)};\nimport * as lt from ${JSON.stringify(LOCAL_TIME_JS)};\n${code}`,
    ],
    {
      env: { ...process.env, TZ: tz },
      encoding: 'utf8',
    },
  );
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

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
        assert.equal(
          texts.find((x: string) => x.startsWith('review')),
          `review\n_(late — scheduled for ${formatLocal(NOW + 3 * HOUR)})_`,
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
