// Leo Chat end to end with the real Claude Code CLI, launched by the daemon in its private tmux against the scripted
// API server (leo-chat.md, Delivery and Replies): a message sent to the thread is pasted into Claude as a
// `[Leo Chat]` prompt; at the end of the turn Claude's Stop hook runs `leo hook stop` and the daemon posts the turn's
// last assistant message back into the thread, unless the agent already answered through Leo's MCP tool
// leo_chat_post during that turn.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AnthropicServer, isAgentTurn, type RecordedRequest } from '../helpers/anthropic-server.js';
import { claudeSandbox, claudeTemplateConfig, findClaude } from '../helpers/claude-cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { alive, until } from '../helpers/wait.js';

const AGENT = 'claude-chat-e2e';
const MODEL = 'claude-sonnet-4-5';
const QUESTION = 'What is 2+2?';
const ANSWER = 'Four.';
const TOOL_ASK = 'Post a note to the thread with your tool, marker LEO-CHAT-4410';
const POST_TOOL = 'mcp__leo__leo_chat_post';
const TOOL_ID = 'toolu_leo_chat_post_1';
const POSTED = 'posted by tool';
const CLOSING = 'done';

interface ChatMessage {
  id: string;
  direction: 'in' | 'out';
  kind: string;
  text: string;
  state: string;
  reply_to?: string;
  note?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The last user-role message of a request: what this model call is answering (a prompt or a tool result). */
function lastUserMessage(body: any): any {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return messages.filter((m) => m?.role === 'user').at(-1);
}

function blocks(message: any): any[] {
  if (typeof message?.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message?.content) ? message.content : [];
}

function hasToolResult(message: any, id: string): boolean {
  return blocks(message).some((b) => b?.type === 'tool_result' && b.tool_use_id === id);
}

function mentions(message: any, text: string): boolean {
  return blocks(message).some((b) => b?.type === 'text' && typeof b.text === 'string' && b.text.includes(text));
}

describe('Leo Chat with a real claude agent', () => {
  it(
    'posts the reply a turn ends with, and nothing more when the turn posted with leo_chat_post',
    { timeout: 120_000 },
    async (t) => {
      const claude = await findClaude();
      if ('missing' in claude) {
        t.skip(claude.missing);
        return;
      }
      const started = Date.now();
      // Scripted by what each agent turn answers, not by order: Claude may make more calls than the test plans.
      const api = await AnthropicServer.start({
        script: (req, { sideRequest }) => {
          if (sideRequest) return undefined;
          const last = lastUserMessage(req.body);
          if (hasToolResult(last, TOOL_ID)) return { text: CLOSING };
          if (mentions(last, TOOL_ASK)) return { toolUse: { name: POST_TOOL, id: TOOL_ID, input: { text: POSTED } } };
          if (mentions(last, QUESTION)) return { text: ANSWER };
          return undefined;
        },
      });
      const sandbox = claudeSandbox({ baseUrl: api.url });
      const config = claudeTemplateConfig(claude.bin, sandbox, MODEL);
      // The daemon's clock is left alone: reply capture compares the delivery time with the transcript's real times.
      const d = await startTestDaemon({ config });
      const token = d.daemon.operatorToken;
      const sock = path.join(d.home, 'state', 'tmux.sock');
      const tmux = (...args: string[]) => spawnSync('tmux', ['-S', sock, ...args], { encoding: 'utf8' });
      const pane = () => tmux('capture-pane', '-p', '-t', `=leo-${AGENT}:`).stdout ?? '';
      t.after(async () => {
        const pid = Number(tmux('display-message', '-p', '-t', `=leo-${AGENT}:`, '#{pane_pid}').stdout.trim());
        await d.stop();
        // Claude saves its state as it exits on the hangup; removing the sandbox under it would leave strays behind.
        if (pid > 0) await until('claude to exit', () => !alive(pid), 10_000).catch(() => undefined);
        await api.close();
        sandbox.cleanup();
      });

      const thread = async (): Promise<ChatMessage[]> => {
        const r = await request(d.tcp, 'GET', `/api/v1/chat/${AGENT}/messages?limit=100`, { token });
        assert.equal(r.status, 200, r.text);
        return r.json.data.messages;
      };
      const send = async (text: string): Promise<ChatMessage> => {
        const r = await request(d.tcp, 'POST', `/api/v1/chat/${AGENT}/messages`, { token, body: { text } });
        assert.equal(r.status, 201, r.text);
        return r.json.data;
      };
      const delivered = (id: string) =>
        until(
          `message ${id} to be delivered`,
          async () => {
            const m = (await thread()).find((x) => x.id === id);
            if (m?.state === 'failed') throw new Error(`delivery failed: ${m.note}; pane:\n${pane()}`);
            return m?.state === 'delivered' ? m : undefined;
          },
          15_000,
          200,
        );
      /** The transcript's stop_hook_summary lines: Claude writes one per finished turn, after running the Stop hook. */
      const transcriptDir = path.join(sandbox.configDir, 'projects');
      const stopSummaries = () => {
        const out: { hookInfos: { command: string }[] }[] = [];
        for (const f of fs.existsSync(transcriptDir) ? fs.readdirSync(transcriptDir, { recursive: true }) : []) {
          if (!String(f).endsWith('.jsonl')) continue;
          for (const line of fs.readFileSync(path.join(transcriptDir, String(f)), 'utf8').split('\n'))
            if (line.includes('stop_hook_summary')) out.push(JSON.parse(line));
        }
        return out;
      };
      const agentTurn = (pred: (r: RecordedRequest) => boolean) => (r: RecordedRequest) =>
        r.body?.stream === true && isAgentTurn(r.body) && pred(r);

      const spawned = await request(d.tcp, 'POST', '/api/v1/agents/spawn', {
        token,
        body: { template: 'coder', name: AGENT },
      });
      assert.equal(spawned.status, 201, spawned.text);
      await until('claude to show its prompt', () => pane().includes('for shortcuts'), 30_000).catch((err) => {
        throw new Error(`${(err as Error).message}; pane:\n${pane()}`);
      });

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
      const reply = await until(
        'the captured reply in the thread',
        async () => (await thread()).find((m) => m.direction === 'out' && m.text === ANSWER),
        20_000,
        200,
      ).catch((err) => {
        throw new Error(`${(err as Error).message}; pane:\n${pane()}`);
      });
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
      const toolResult = await api.waitForRequest(
        agentTurn((r) => hasToolResult(lastUserMessage(r.body), TOOL_ID)),
        15_000,
      );
      const result = blocks(lastUserMessage(toolResult.body)).find((b) => b?.type === 'tool_result');
      assert.notEqual(result.is_error, true, `the tool call succeeded: ${JSON.stringify(result)}`);
      const posted = (await thread()).filter((m) => m.direction === 'out' && m.text === POSTED);
      assert.equal(posted.length, 1, 'the post reached the thread through Leo MCP endpoint');
      // The turn is over once Claude has run the Stop hook for it; the daemon's capture then runs asynchronously.
      await until('the Stop hook of the second turn', () => stopSummaries().length > stopsBefore, 15_000).catch(
        (err) => {
          throw new Error(`${(err as Error).message}; pane:\n${pane()}`);
        },
      );
      await until('the closing text on screen', () => pane().includes(CLOSING), 5000).catch(() => undefined);
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
