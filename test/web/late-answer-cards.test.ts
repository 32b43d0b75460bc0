// Leo Web's permission card for a real Claude agent (issue 27 item 3), in a real browser at phone size: while chat
// holds the prompt the card counts down to its deadline; once that passes with Claude's dialog still up, the card
// says so and its buttons still decide — Allow runs the tool, Deny refuses it — as a person taps them seconds later.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { startClaudeAgent } from '../helpers/claude-agent.js';
import { promptViews, toolScript, touch, type ToolCall } from '../helpers/claude-prompts.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairPage, PHONE, Screenshots, watchPage } from './browser.js';

const AGENT = 'late-card';
/** A person reads the card before tapping. */
const PACE_MS = 3_000;
const SCENARIOS: Record<string, ToolCall> = {
  'CARD-ALLOW': touch('card-allow'),
  'CARD-DENY': touch('card-deny'),
  'CARD-RACE': touch('card-race'),
};
const WAITING = 'Timed out in chat — the agent is still waiting in its terminal';

describe('Leo Web: a permission card after chat’s wait ends', () => {
  it(
    'counts down while chat holds it, then says the agent waits in its terminal, and Allow / Deny still decide',
    {
      timeout: 240_000,
    },
    async (t) => {
      const c = await startClaudeAgent(t, { agent: AGENT, script: toolScript(SCENARIOS) });
      if (!c) return;
      const browser = await launchBrowser();
      t.after(() => browser.close());
      const shots = new Screenshots();
      const page = watchPage(await (await browser.newContext({ viewport: PHONE })).newPage());
      await pairPage(page, { ...process.env, LEO_HOME: c.d.home, LEO_USER_HOME: c.d.home });
      await page.goto(`${c.d.daemon.appUrl}#/t/${AGENT}`);
      const clock = c.d.clock as ManualClock;
      const workspace = path.join(c.sandbox.dir, 'workspace');
      const { answer, begin, resultOf } = promptViews(c, AGENT, SCENARIOS);

      const allow = await begin('CARD-ALLOW', 'permission');
      const card = page.locator(`.action-card[data-id="${allow.id}"]`);
      const timer = card.locator('[role="timer"]');
      await timer.waitFor();
      const first = await timer.innerText();
      assert.match(first, /Chat waits [12]:\d\d more/);
      // It ticks each second: a changed text within 2.5 s is the countdown moving.
      await until('the countdown to move', async () => (await timer.innerText()) !== first, 2_500, 100);
      await shots.take(page, 'permission-countdown');

      clock.advance(120_000);
      await card.getByText(WAITING).waitFor();
      assert.equal(await timer.count(), 0, 'no countdown once chat has let go');
      await shots.take(page, 'permission-terminal-waiting');
      await sleep(PACE_MS);
      await card.getByRole('button', { name: 'Allow' }).click();
      await card.getByText('Allowed from chat').waitFor();
      await resultOf('CARD-ALLOW');
      assert.ok(fs.existsSync(path.join(workspace, 'card-allow.txt')), 'the command allowed from the card ran');
      await shots.take(page, 'permission-terminal-allowed');

      // Another device allows just before this one's Deny reaches the daemon: the card says this answer was not used.
      const race = await begin('CARD-RACE', 'permission');
      const raceCard = page.locator(`.action-card[data-id="${race.id}"]`);
      clock.advance(120_000);
      await raceCard.getByText(WAITING).waitFor();
      await page.route('**/answer', async (route) => {
        assert.equal((await answer(race.id, { values: ['allow'] })).status, 200);
        await route.continue();
      });
      await sleep(PACE_MS);
      await raceCard.getByRole('button', { name: 'Deny' }).click();
      await raceCard.getByText('Answered elsewhere before your answer arrived: yours was not used.').waitFor();
      await raceCard.getByText('Allowed from chat').waitFor();
      await resultOf('CARD-RACE');
      assert.ok(fs.existsSync(path.join(workspace, 'card-race.txt')), 'the winning answer decided');
      await shots.take(page, 'permission-answered-elsewhere');
      await page.unroute('**/answer');

      // Claude's "No" ends its turn: the last scenario.
      const deny = await begin('CARD-DENY', 'permission');
      const denyCard = page.locator(`.action-card[data-id="${deny.id}"]`);
      clock.advance(120_000);
      await denyCard.getByText(WAITING).waitFor();
      // Opened afresh, the app's Inbox still lists it with the cards that wait on the owner, and it answers there.
      await page.goto(`${c.d.daemon.appUrl}#/inbox`);
      await page.reload();
      const inboxCard = page.locator(`[data-screen="inbox"] .action-card[data-id="${deny.id}"]`);
      await inboxCard.getByText(WAITING).waitFor();
      // The fleet's Inbox link (behind the inbox screen on a phone) counts it.
      assert.equal(await page.locator('a.inbox-link[aria-label="Inbox, 1 waiting"]').count(), 1);
      await shots.take(page, 'permission-terminal-waiting-inbox');
      await sleep(PACE_MS);
      await inboxCard.getByRole('button', { name: 'Deny' }).click();
      await inboxCard.getByText('Denied from chat').waitFor();
      await c.withPane(until('Claude’s dialog to close', () => !/Do you want/.test(c.pane()), 15_000, 200));
      assert.equal(fs.existsSync(path.join(workspace, 'card-deny.txt')), false, 'the denied command did not run');
    },
  );
});
