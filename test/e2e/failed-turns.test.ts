// A failed turn is not silent (issue 27), end to end with each real CLI: a message sent right after the spawn, its
// model server refusing the request (401) or Claude holding no key; the thread gets one note saying why, the
// message stays delivered, nothing else is posted for it, and the fleet shows the agent's turn_error.
import assert from 'node:assert/strict';
import { describe, it, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentViews, ChatMessage } from '../helpers/agent-views.js';
import { startClaudeAgent } from '../helpers/claude-agent.js';
import type { TestDaemon } from '../helpers/daemon.js';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import type { ManualClock } from '../../src/core/clock.js';

const KEY_REFUSED = 'the provider refused the request (401 Unauthorized) — check its API key';

/**
 * Sends one message at once, waits for the failure note, then checks it stays the only thing posted for the message
 * and that /api/v1/state carries the reason. Returns the note.
 */
async function expectFailureNote(
  t: TestContext,
  a: AgentViews & { d: TestDaemon; token: string },
  agent: string,
  reason: string,
  withinMs: number,
  opts: { sweeps?: boolean } = {},
): Promise<ChatMessage> {
  // The activity sweep runs on the daemon's clock, which a test daemon moves only when told: two seconds at a time,
  // each sweep given real time to read the panes.
  const pump = opts.sweeps ? setInterval(() => (a.d.clock as ManualClock).advance(2000), 300) : undefined;
  t.after(() => clearInterval(pump));
  const sent = await a.send('what is in the workspace?');
  const note = await a.withPane(
    until(
      'the failure note in the thread',
      async () => (await a.thread()).find((m) => m.kind === 'system' && m.text.startsWith('Could not answer')),
      withinMs,
      250,
    ),
  );
  assert.ok(note.text.startsWith(`Could not answer: ${reason}\n\n`), note.text);
  const state = await request(a.d.tcp, 'GET', '/api/v1/state', { token: a.token });
  const fleet = state.json.data.agents.find((x: { name: string }) => x.name === agent);
  assert.equal(fleet.turn_error?.message, reason);
  // Later checks (a Stop, the idle sweep, the next hook) add nothing for that message.
  await sleep(4000);
  const thread = await a.thread();
  assert.equal(thread.filter((m) => m.text.startsWith('Could not answer')).length, 1, JSON.stringify(thread));
  assert.equal(thread.filter((m) => m.reply_to === sent.id).length, 0);
  assert.equal(thread.find((m) => m.id === sent.id)?.state, 'delivered');
  return note;
}

// Each test has a daemon, a CLI and a model server of its own, and spends most of its time waiting (on a CLI's
// retries, a screen going still, the quiet after the note): side by side, the file takes as long as its slowest test.
describe('a failed turn says so in the thread and the fleet (real CLIs)', { concurrency: true }, () => {
  it('Claude without a key: "not logged in"', { timeout: 120_000 }, async (t) => {
    const c = await startClaudeAgent(t, {
      agent: 'claude-nokey',
      script: () => undefined,
      env: { ANTHROPIC_API_KEY: '' },
    });
    if (!c) return;
    const note = await expectFailureNote(
      t,
      c,
      'claude-nokey',
      'not logged in — check its environment or run /login',
      30_000,
    );
    assert.match(note.text, /Not logged in · Please run \/login$/);
    assert.equal(c.api.messageRequests().length, 0, 'Claude asked no model');
  });

  it('Claude whose provider answers 401', { timeout: 120_000 }, async (t) => {
    const c = await startClaudeAgent(t, {
      agent: 'claude-401',
      script: () => ({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }),
      // Claude retries a 401 up to 10 times over minutes by default; one retry keeps the test short.
      env: { CLAUDE_CODE_MAX_RETRIES: '1' },
    });
    if (!c) return;
    const note = await expectFailureNote(t, c, 'claude-401', KEY_REFUSED, 60_000);
    assert.match(note.text, /Invalid API key/);
  });

  it(
    'Codex whose provider answers 401 (no hook: found when the screen goes still)',
    { timeout: 180_000 },
    async (t) => {
      const a = await startHarnessAgent(t, {
        harness: 'codex',
        agent: 'codex-401',
        waitForReady: false,
        script: () => ({ error: { status: 401, message: 'Incorrect API key provided: sk-test-***1234.' } }),
      });
      if (!a) return;
      const note = await expectFailureNote(t, a, 'codex-401', KEY_REFUSED, 90_000, { sweeps: true });
      assert.match(note.text, /unexpected status 401 Unauthorized: Incorrect API key provided/);
    },
  );

  it('opencode whose provider answers 401', { timeout: 240_000 }, async (t) => {
    const a = await startHarnessAgent(t, {
      harness: 'opencode',
      agent: 'oc-401',
      waitForReady: false,
      script: () => ({ error: { status: 401, message: 'Incorrect API key provided: sk-test-***1234.' } }),
    });
    if (!a) return;
    // opencode's first start can take a minute (docs/harnesses/opencode.md), and it may retry before it gives up.
    const note = await expectFailureNote(t, a, 'oc-401', KEY_REFUSED, 200_000);
    assert.match(note.text, /Incorrect API key provided/);
  });
});
