import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { ChatService } from '../../src/chat/threads/chat-service.js';
import { ReminderService } from '../../src/chat/reminders/reminders.js';
import { ManualClock } from '../../src/core/clock.js';
import { openDatabase } from '../../src/store/database.js';
import { until } from '../helpers/wait.js';
import { CrashHome, runSeeds, sleep, type McpSession, type Rng } from './kit.js';

const AGENT = 'clock';
const REMINDERS = 6;

/** SIGKILL near a reminder's firing moment (either side of it), or at a random moment when none is left ahead. */
async function killNearAFiring(h: CrashHome, rng: Rng, ats: number[]): Promise<void> {
  const ahead = ats.filter((at) => at > Date.now() + 100);
  const killAt = ahead.length ? rng.pick(ahead) + rng.int(-150, 150) : Date.now() + rng.int(0, 500);
  await sleep(killAt - Date.now());
  await h.kill();
}

/**
 * Schedules `text` `ms` ahead of the moment the daemon reads the call, and answers its `at`. The `at` is taken as the
 * call goes out on a session already open; should the daemon's clock still pass it while the call waits on a loaded
 * machine, the daemon refuses it (storing nothing) and it is taken again from the new now.
 */
async function scheduleAhead(tools: McpSession, text: string, ms: number): Promise<number> {
  for (let tries = 1; ; tries++) {
    const at = Date.now() + ms;
    try {
      await tools.call('leo_chat_schedule', { text, at: new Date(at).toISOString() });
      return at;
    } catch (err) {
      if (tries === 3 || !String(err).includes('must be in the future')) throw err;
    }
  }
}

describe('crash: SIGKILL while reminders come due', () => {
  it('each reminder fires exactly once: due while down, or killed around its firing moment', async (t) => {
    await runSeeds(t, 'reminders', { ciSeeds: 4, parallel: 2, file: 'crash/reminders' }, (seed, rng) =>
      CrashHome.use(async (h) => {
        await h.start();
        await h.spawnAgent(AGENT, 'sink');

        const ats: number[] = [];
        const tools = await h.mcpSession(AGENT);
        try {
          for (let i = 0; i < REMINDERS; i++)
            ats.push(await scheduleAhead(tools, `R${seed}x${i}Z`, rng.int(1500, 6000)));
        } finally {
          await tools.close();
        }

        // First kill near a firing; down long enough for some to come due meanwhile. The restart may be killed
        // too (that is when the overdue ones fire), and a second kill may land near a later firing.
        await killNearAFiring(h, rng, ats);
        await sleep(rng.int(0, 3000));
        if (rng() < 0.5) await h.startAndKill(rng.int(100, 2000));
        await h.start();
        if (rng() < 0.5) {
          await killNearAFiring(h, rng, ats);
          await sleep(rng.int(0, 1500));
          await h.start();
        }

        await sleep(Math.max(...ats) - Date.now());
        const texts = await until(
          'every reminder to have fired',
          async () => {
            const out = (await h.thread(AGENT)).filter((m) => m.direction === 'out').map((m) => m.text);
            return ats.every((_, i) => out.includes(`R${seed}x${i}Z`)) && out;
          },
          10_000,
        ).catch(async () => (await h.thread(AGENT)).map((m) => m.text));
        for (let i = 0; i < REMINDERS; i++)
          assert.equal(
            texts.filter((x) => x === `R${seed}x${i}Z`).length,
            1,
            `reminder ${i} (due ${new Date(ats[i]!).toISOString()}) fired exactly once`,
          );
        assert.deepEqual((await h.mcpTool(AGENT, 'leo_chat_schedule_list', {})).reminders, [], 'none left scheduled');
        return { kills: h.kills, fired: REMINDERS, 'due while down': ats.filter((at) => h.wasDownAt(at)).length };
      }),
    );
  });

  it('a firing cut off between its claim and its post is still due after the restart', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-crash-'));
    const file = path.join(dir, 'chat.db');
    const clock = new ManualClock(Date.parse('2026-10-13T12:00:00Z'));
    const posted: string[] = [];
    const chat = (post: ChatService['post']) => ({ post }) as ChatService;
    try {
      let db = openDatabase(file);
      const scheduling = new ReminderService({ db, clock, chat: chat(() => assert.fail('not yet')) });
      scheduling.schedule({ agent: 'den' }, 'stand-up', '2026-10-13T12:00:05Z');
      scheduling.close();
      clock.advance(60_000);
      // The process "dies" while posting: the claim must not outlive the post it was for.
      assert.throws(
        () =>
          new ReminderService({
            db,
            clock,
            chat: chat(() => {
              throw new Error('killed here');
            }),
          }).start(),
        /killed here/,
      );
      db.close();

      db = openDatabase(file);
      const restarted = new ReminderService({
        db,
        clock,
        chat: chat((_agent, p) => (posted.push(p.text), {}) as ReturnType<ChatService['post']>),
      });
      restarted.start();
      restarted.start();
      restarted.close();
      db.close();
      assert.deepEqual(posted, ['stand-up'], 'fired once after the restart');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
