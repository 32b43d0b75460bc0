// A failed turn in Leo Web (issue 27), at phone size: the fleet card turns to a red "failed" badge with the reason as
// the event arrives (no reload), the thread shows the note and the reason under its header, and both clear when the
// agent's next turn starts. The failure is Claude's, as its StopFailure hook reports it with its real transcript.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { claudeStopFailure } from '../helpers/transcripts.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';
import { MessagePage } from '../../src/wire/message.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';
const REASON = 'not logged in — check its environment or run /login';

describe('Leo Web: a failed turn', () => {
  let t: TestDaemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = new Screenshots();
  const hook = (event: string, payload: Record<string, unknown>) =>
    request(t.socket, 'POST', `/hooks/${event}`, { body: { agent: 'den', payload } });
  const card = () => page.locator('[data-agent="den"]');

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    ({ context, page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await t?.stop();
  });

  it('the card, the note and the thread header say the turn failed, and clear with the next turn', async () => {
    await card().waitFor();
    assert.equal(await card().locator('[data-turn-error]').count(), 0);
    const text = 'check the logs please';
    const sent = (await t.op('POST', '/api/v1/chat/den/messages', { text })).json.data.id as string;
    await until(
      'delivered',
      async () =>
        (await t.get('/api/v1/chat/den/messages', MessagePage)).messages.find((m: { id: string }) => m.id === sent)
          ?.state === 'delivered',
      5000,
      50,
    );
    await hook('stop-failure', claudeStopFailure(t.home, text));

    // The fleet follows the event: a red badge, the reason in words.
    await card().locator('[data-turn-error]').waitFor();
    assert.equal((await card().locator('[data-turn-error]').textContent())?.trim(), 'failed');
    assert.equal(
      (await card().locator('[data-turn-error-reason]').textContent())?.trim(),
      `Last turn failed: ${REASON}`,
    );
    await shots.take(page, 'fleet-turn-failed');

    await card().locator('a.agent-link').click();
    const thread = page.locator('[data-thread="den"]');
    const note = thread.getByText(`Could not answer: ${REASON}`, { exact: false });
    await note.waitFor();
    assert.ok(await thread.getByText('Not logged in · Please run /login', { exact: false }).isVisible());
    // Under the header: the badge and the reason (the header keeps its room for the agent's name).
    const strip = thread.locator('[data-turn-error-reason]');
    assert.ok(await strip.locator('[data-turn-error]').isVisible());
    assert.equal((await strip.textContent())?.trim(), `failed Last turn failed: ${REASON}`);
    await shots.take(page, 'thread-turn-failed');

    // The next turn starts: the badge and the reason go at once.
    await hook('user-prompt-submit', { prompt: '[Leo Chat] again' });
    await thread.locator('[data-turn-error]').waitFor({ state: 'detached' });
    assert.equal(await thread.locator('[data-turn-error-reason]').count(), 0);
    assert.ok(await note.isVisible(), 'the note stays in the thread');
  });
});
