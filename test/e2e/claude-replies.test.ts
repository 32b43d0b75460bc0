// Claude reply capture end to end with the real Claude Code CLI (issue 14 items 8, 9 and 11): a turn that ends while
// the daemon is down is posted once when it starts again; a message re-sent after an interrupted turn gets the one
// reply, and the interrupted one none but a note saying so; a reply's chat.message comes after its message's delivered chat.updated.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { isAgentTurn, lastUserMessage, mentions, type RecordedRequest } from '../helpers/anthropic-server.js';
import { startClaudeAgent, type ChatMessage } from '../helpers/claude-agent.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';

const turnFor = (marker: string) => (r: RecordedRequest) =>
  r.body?.stream === true && isAgentTurn(r.body) && mentions(lastUserMessage(r.body), marker);
const replies = (thread: ChatMessage[]) => thread.filter((m) => m.direction === 'out' && m.kind === 'text');

describe('Claude replies with a real claude agent', () => {
  it(
    'a turn that ends while the daemon is down is posted once when it starts again, and never again',
    { timeout: 150_000 },
    async (t) => {
      const MARKER = 'LEO-REPLY-8';
      const ANSWER = 'Eight moons, counted while Leo was away.';
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      const c = await startClaudeAgent(t, {
        agent: 'claude-downtime',
        script: (req, { sideRequest }) =>
          !sideRequest && mentions(lastUserMessage(req.body), MARKER) ? { text: ANSWER, hold: held } : undefined,
      });
      if (!c) return;
      const turnsEnded = () => c.transcriptLines('stop_hook_summary').length;
      const message = await c.send(`Count the moons, marker ${MARKER}`);
      await c.delivered(message.id);
      await c.withPane(c.api.waitForRequest(turnFor(MARKER), 15_000));
      const endedBefore = turnsEnded();

      // The daemon stops (Leo's tmux server and claude keep running) while the model is still answering.
      await c.d.daemon.close();
      assert.equal(turnsEnded(), endedBefore, 'the turn was still running when the daemon stopped');
      release();
      // Claude finishes the turn and runs its Stop hook, which finds no daemon.
      await c.withPane(until('the turn to end with no daemon', () => turnsEnded() > endedBefore, 20_000));
      await until('the answer on screen', () => c.pane().includes('Eight moons'), 5000);

      const env = { ...process.env, LEO_HOME: c.d.home, LEO_USER_HOME: c.d.home };
      const start = () => startDaemon({ env, clock: new ManualClock(Date.now()), logger: createLogger('warn') });
      const threadOf = async (d: Daemon) => {
        const r = await request({ port: d.port }, 'GET', `/api/v1/chat/claude-downtime/messages?limit=200`, {
          token: d.operatorToken,
        });
        assert.equal(r.status, 200, r.text);
        return r.json.data.messages as ChatMessage[];
      };
      let again = await start();
      try {
        const reply = await until(
          'the reply posted at start-up',
          async () => replies(await threadOf(again)).find((m) => m.text === ANSWER),
          15_000,
          200,
        );
        assert.equal(reply.reply_to, message.id);
        await sleep(2000);
        assert.equal(replies(await threadOf(again)).length, 1);
        // Started again (and again): the turn was settled, nothing is posted twice.
        await again.close();
        again = await start();
        await again.close();
        again = await start();
        await sleep(3000);
        const thread = await threadOf(again);
        assert.deepEqual(
          replies(thread).map((m) => [m.text, m.reply_to]),
          [[ANSWER, message.id]],
          `one reply in the thread: ${JSON.stringify(thread)}`,
        );
        assert.equal(thread.find((m) => m.id === message.id)?.state, 'delivered');
      } finally {
        await again.close();
      }
    },
  );

  it(
    'the same text re-sent after an interrupted turn gets one reply, to the second message, after its delivery',
    { timeout: 120_000 },
    async (t) => {
      const MARKER = 'LEO-REPLY-9';
      const TEXT = `Count the moons, marker ${MARKER}`;
      let turns = 0;
      const c = await startClaudeAgent(t, {
        agent: 'claude-interrupt',
        script: (req, { sideRequest }) => {
          if (sideRequest || !mentions(lastUserMessage(req.body), MARKER)) return undefined;
          // The first turn starts answering and then hangs, as behind a slow model, until the person interrupts it.
          return ++turns === 1
            ? { text: 'Let me count them one by one.', hold: new Promise(() => {}) }
            : { text: 'Two moons.' };
        },
      });
      if (!c) return;
      const sse = await SseClient.open(c.d.tcp, '/api/v1/events', c.token);
      t.after(() => sse.close());
      const turnsEnded = () => c.transcriptLines('stop_hook_summary').length;

      const first = await c.send(TEXT);
      await c.delivered(first.id);
      await c.withPane(c.api.waitForRequest(turnFor(MARKER), 15_000));
      // The answer has begun streaming; the person waits a while, gives up on it and presses Escape in the pane.
      await sleep(6000);
      c.tmux('send-keys', '-t', '=leo-claude-interrupt:', 'Escape');
      await c.withPane(
        until('the interrupt', () => c.transcriptLines('[Request interrupted by user').length > 0, 10_000),
      );
      const endedBefore = turnsEnded();
      await sleep(2000);

      const second = await c.send(TEXT);
      await c.delivered(second.id);
      await c.withPane(until('the second turn to end', () => turnsEnded() > endedBefore, 20_000));
      const reply = await c.withPane(
        until('the reply', async () => replies(await c.thread()).find((m) => m.text === 'Two moons.'), 15_000, 200),
      );
      await sleep(3000);
      const thread = await c.thread();
      assert.deepEqual(
        replies(thread).map((m) => [m.text, m.reply_to]),
        [['Two moons.', second.id]],
        `one reply, to the second message: ${JSON.stringify(thread)}`,
      );
      // Issue 27: the interrupted message is not left silent: one short note says it got no reply.
      assert.deepEqual(
        thread.filter((m) => m.kind === 'system' && m.text.startsWith('Interrupted')).map((m) => m.text),
        ['Interrupted — no reply to this message'],
      );

      // Item 11: the reply's chat.message comes after the chat.updated that says its message was delivered.
      const at = (pred: (e: { event: string; data: any }) => boolean) => sse.events.findIndex(pred);
      const delivered = at(
        (e) => e.event === 'chat.updated' && e.data.message.id === second.id && e.data.message.state === 'delivered',
      );
      const posted = at((e) => e.event === 'chat.message' && e.data.message.id === reply.id);
      assert.ok(delivered > 0 && posted > delivered, `delivered at event ${delivered}, reply at ${posted}`);
      t.diagnostic(`prompts Claude sent: ${JSON.stringify(c.api.prompts())}`);
    },
  );
});
