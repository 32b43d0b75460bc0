// The real Claude Code CLI, launched by the daemon in its private tmux exactly as a user's agent would be, against the
// scripted API server: a typed prompt must show as `working` on the event stream while the reply streams, and as
// `idle` once the turn is over and the idle threshold has passed on the daemon's clock. Any current_action.detail
// sampled is what Claude shows of the turn, never Claude's own status line or input box.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { startClaudeAgent } from '../helpers/claude-agent.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { SseClient, type SseMessage } from '../helpers/sse-client.js';

const AGENT = 'claude-e2e';
const PROMPT = 'Summarise the plan in one line, marker LEO-E2E-7731';
const REPLY = 'The plan: probe, script, stream, and settle into idle.';
/** How long the scripted reply streams: long enough for a few 1 s sweeps to see the spinner move. */
const REPLY_MS = 4000;

describe('a real claude agent', () => {
  it(
    'goes working while its reply streams and idle after the threshold; Leo hooks do not break it',
    { timeout: 120_000 },
    async (t) => {
      const started = Date.now();
      let sse!: SseClient;
      const c = await startClaudeAgent(t, {
        agent: AGENT,
        script: (_req, { sideRequest }) => (sideRequest ? undefined : { text: REPLY, delayMs: REPLY_MS, chunks: 6 }),
        beforeSpawn: async (d) => {
          sse = await SseClient.open(d.tcp, '/api/v1/events', d.daemon.operatorToken);
          t.after(() => sse.close());
          await sse.waitFor(1);
        },
      });
      if (!c) return;
      const { api, tmux, pane } = c;
      const clock = c.d.clock as ManualClock;
      const activity = (from: number, kind: string) =>
        sse.events.slice(from).find((e: SseMessage) => e.event === 'agent_activity' && e.data.activity === kind);
      assert.match(pane(), new RegExp(`Claude Code v${c.version.replace(/\./g, '\\.')}`), 'the pinned claude ran');

      // One sweep takes the session's baseline, so the typing below reads as an advance.
      clock.advance(2000);
      await sleep(300);
      const beforePrompt = sse.events.length;

      tmux('send-keys', '-t', `=leo-${AGENT}:`, '-l', PROMPT);
      await sleep(300);
      // An Enter right after typing is occasionally swallowed; the input line still holding the text means resend.
      const stillTyped = () =>
        pane()
          .split('\n')
          .filter((l) => l.startsWith('❯'))
          .at(-1)
          ?.includes(PROMPT) ?? false;
      for (let attempt = 0; attempt < 3; attempt++) {
        tmux('send-keys', '-t', `=leo-${AGENT}:`, 'Enter');
        const sent = await until(
          'the prompt to be submitted',
          () => api.prompts().includes(PROMPT) || !stillTyped(),
          2000,
        )
          .then(() => true)
          .catch(() => false);
        if (sent) break;
      }
      await api.waitForRequest((r) => r.body?.stream === true && JSON.stringify(r.body).includes(PROMPT), 10_000);

      // tmux's activity time has one-second resolution: sweep about once a real second while the reply streams.
      let working: SseMessage | undefined;
      for (let i = 0; i < 12 && !working; i++) {
        clock.advance(2000);
        await sleep(1000);
        working = activity(beforePrompt, 'working');
      }
      assert.ok(
        working,
        `agent_activity working after the prompt; events: ${JSON.stringify(sse.events.slice(beforePrompt))}`,
      );
      assert.equal(working.data.agent, AGENT);

      // The turn is over once the reply is on screen and Claude has run the Stop hook (it writes a summary of it).
      const stopSummary = () =>
        c.transcriptLines('stop_hook_summary')[0] as
          { hookInfos: { command: string }[]; preventedContinuation: boolean } | undefined;
      await until('the reply on screen', () => pane().replace(/\s+/g, ' ').includes(REPLY), 15_000);
      const summary = await until('the Stop hook summary in the transcript', stopSummary, 15_000);
      assert.ok(
        summary.hookInfos.some((h) => /bin\/leo\.js'? '?hook'? '?stop/.test(h.command)),
        `Leo's Stop hook ran: ${JSON.stringify(summary.hookInfos)}`,
      );
      assert.equal(summary.preventedContinuation, false, 'the Stop hook did not hold the turn open');

      // Claude still redraws after the turn: a "tmux focus-events off" notice it shows during the turn is taken down
      // about 8 s later, and even without it the screen changes once more a few seconds after the reply. Output after
      // the sweeps below would read as new work, so wait for the notice to go and for a quiet spell.
      await until('the focus-events notice to go', () => !pane().includes('focus-events off'), 20_000);
      const windowActivity = () =>
        tmux('display-message', '-p', '-t', `=leo-${AGENT}:`, '#{window_activity}').stdout.trim();
      let seen = windowActivity();
      let quietSince = Date.now();
      await until(
        'the pane to stay quiet',
        () => {
          const now = windowActivity();
          if (now !== seen) [seen, quietSince] = [now, Date.now()];
          return Date.now() - quietSince >= 3000;
        },
        20_000,
      );
      // Past the 15 s threshold on the daemon's clock, giving each sweep real time to reach tmux and come back.
      const afterWorking = sse.events.indexOf(working);
      let idle: SseMessage | undefined;
      for (let i = 0; i < 30 && !idle; i++) {
        clock.advance(2000);
        await sleep(200);
        idle = activity(afterWorking + 1, 'idle');
      }
      assert.ok(
        idle,
        `agent_activity idle after the threshold; events: ${JSON.stringify(sse.events.slice(afterWorking))}`,
      );
      assert.equal(idle.data.agent, AGENT);
      assert.equal(idle.data.current_action, null);

      // What the agent was doing, never Claude's furniture: its status line, spinner, input box, banner or notices.
      const details = sse.events
        .slice(beforePrompt)
        .filter((e) => e.event === 'agent_activity' && e.data.agent === AGENT && e.data.current_action)
        .map((e) => e.data.current_action as { kind: string; detail: string });
      // The turn's Stop makes the agent idle at once (issue 27): Claude draws the reply as the turn ends, so it is no
      // longer reported as work, and a turn this short may leave no sample with a detail. Any sampled is the turn's.
      for (const a of details) {
        assert.equal(a.kind, 'pane');
        assert.doesNotMatch(
          a.detail,
          /for shortcuts|mode on|esc to interrupt|^❯|^[·✢✳✶✻✽] |Claude Code v|focus-events|^[─\s]*$/u,
          `detail is Claude's furniture: ${JSON.stringify(details)}`,
        );
      }

      // What Claude sent: the typed prompt, once, in one agent turn, and nothing but the Messages API.
      const turns = api.messageRequests().filter((r) => JSON.stringify(r.body).includes(PROMPT));
      assert.equal(turns.length, 1, 'one model turn for the prompt');
      assert.deepEqual(api.prompts(), [PROMPT]);
      assert.deepEqual(api.endpoints(), ['POST /v1/messages']);
      const state = await request(c.d.tcp, 'GET', '/api/v1/state', { token: c.token });
      const agent = state.json.data.agents.find((a: { name: string }) => a.name === AGENT);
      assert.equal(agent.status, 'running', 'claude is still up after its hooks ran');
      assert.equal(agent.activity, 'idle');
      t.diagnostic(`details: ${JSON.stringify(details.map((a) => a.detail))}`);
      t.diagnostic(`ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  );
});
