// Leo Chat end to end with the real Claude Code CLI, launched by the daemon in its private tmux against the scripted
// API server (leo-chat.md, Delivery and Replies): a message sent to the thread is pasted into Claude as a
// `[Leo Chat]` prompt; at the end of the turn Claude's Stop hook runs `leo hook stop` and the daemon posts the turn's
// last assistant message back into the thread, unless the agent already answered through Leo's MCP tool
// leo_chat_post during that turn.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  contentBlocks,
  isAgentTurn,
  lastUserMessage,
  mentions,
  toolResult,
  type RecordedRequest,
} from '../helpers/anthropic-server.js';
import { startClaudeAgent } from '../helpers/claude-agent.js';
import { until } from '../helpers/wait.js';

const AGENT = 'claude-chat-e2e';
const QUESTION = 'What is 2+2?';
const ANSWER = 'Four.';
const TOOL_ASK = 'Post a note to the thread with your tool, marker LEO-CHAT-4410';
const POST_TOOL = 'mcp__leo__leo_chat_post';
const TOOL_ID = 'toolu_leo_chat_post_1';
const POSTED = 'posted by tool';
const CLOSING = 'done';

describe('Leo Chat with a real claude agent', () => {
  it(
    'posts the reply a turn ends with, and nothing more when the turn posted with leo_chat_post',
    { timeout: 120_000 },
    async (t) => {
      const started = Date.now();
      // Scripted by what each agent turn answers, not by order: Claude may make more calls than the test plans.
      const c = await startClaudeAgent(t, {
        agent: AGENT,
        script: (req, { sideRequest }) => {
          if (sideRequest) return undefined;
          const last = lastUserMessage(req.body);
          if (toolResult(last, TOOL_ID)) return { text: CLOSING };
          if (mentions(last, TOOL_ASK)) return { toolUse: { name: POST_TOOL, id: TOOL_ID, input: { text: POSTED } } };
          if (mentions(last, QUESTION)) return { text: ANSWER };
          return undefined;
        },
      });
      if (!c) return;
      const { api, thread, send, delivered, withPane } = c;
      /** The transcript's stop_hook_summary lines: Claude writes one per finished turn, after running the Stop hook. */
      const stopSummaries = () => c.transcriptLines('stop_hook_summary') as { hookInfos: { command: string }[] }[];
      const agentTurn = (pred: (r: RecordedRequest) => boolean) => (r: RecordedRequest) =>
        r.body?.stream === true && isAgentTurn(r.body) && pred(r);

      // 1. Reply captured: the turn's closing text comes back into the thread as a reply to the message.
      const question = await send(QUESTION);
      assert.equal(question.direction, 'in');
      await delivered(question.id);
      const turn1 = await api.waitForRequest(
        agentTurn((r) => mentions(lastUserMessage(r.body), QUESTION)),
        10_000,
      );
      assert.ok(
        api.prompts().includes(`[Leo Chat] ${QUESTION}`),
        `the prompt Claude sent: ${JSON.stringify(api.prompts())}`,
      );
      t.diagnostic(`tools offered: ${JSON.stringify(turn1.body.tools.map((x: any) => x.name))}`);
      const reply = await withPane(
        until(
          'the captured reply in the thread',
          async () => (await thread()).find((m) => m.direction === 'out' && m.text === ANSWER),
          20_000,
          200,
        ),
      );
      assert.equal(reply.reply_to, question.id);
      assert.equal(reply.kind, 'text');
      // Claude records the Stop hook once it has returned, which can be after the daemon already posted the reply.
      const summaries = await until(
        'the Stop hook summary in the transcript',
        () => {
          const all = stopSummaries();
          return all.length ? all : undefined;
        },
        10_000,
      );
      assert.ok(
        summaries.some((s) => s.hookInfos.some((h) => /bin\/leo\.js'? '?hook'? '?stop/.test(h.command))),
        `Leo's Stop hook ran: ${JSON.stringify(summaries)}`,
      );

      // 2. The agent answers with leo_chat_post: that post is the reply, and the turn's closing text is not posted.
      const stopsBefore = stopSummaries().length;
      const ask = await send(TOOL_ASK);
      await delivered(ask.id);
      await api.waitForRequest(
        agentTurn((r) => mentions(lastUserMessage(r.body), TOOL_ASK)),
        10_000,
      );
      const toolTurn = await api.waitForRequest(
        agentTurn((r) => toolResult(lastUserMessage(r.body), TOOL_ID) !== undefined),
        15_000,
      );
      const result = contentBlocks(lastUserMessage(toolTurn.body)).find((b) => b?.type === 'tool_result');
      assert.notEqual(result.is_error, true, `the tool call succeeded: ${JSON.stringify(result)}`);
      const posted = (await thread()).filter((m) => m.direction === 'out' && m.text === POSTED);
      assert.equal(posted.length, 1, 'the post reached the thread through Leo MCP endpoint');
      // The turn is over once Claude has run the Stop hook for it; the daemon's capture then runs asynchronously.
      await withPane(until('the Stop hook of the second turn', () => stopSummaries().length > stopsBefore, 15_000));
      await until('the closing text on screen', () => c.pane().includes(CLOSING), 5000).catch(() => undefined);
      await sleep(3000);
      const after = await thread();
      assert.deepEqual(
        after.filter((m) => m.direction === 'out' && m.text === CLOSING),
        [],
        `no reply posted for a turn that called leo_chat_post; thread: ${JSON.stringify(after)}`,
      );
      assert.deepEqual(
        after.filter((m) => m.direction === 'out' && m.kind !== 'system').map((m) => m.text),
        [ANSWER, POSTED],
        'the thread holds the captured reply and the tool post, nothing more',
      );
      assert.deepEqual(
        after.filter((m) => m.direction === 'in').map((m) => [m.text, m.state]),
        [
          [QUESTION, 'delivered'],
          [TOOL_ASK, 'delivered'],
        ],
      );
      t.diagnostic(`ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  );
});
