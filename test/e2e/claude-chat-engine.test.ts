// The claude-cli engine of the agent chat endpoint with the real Claude Code CLI against the scripted Anthropic API
// (agent-chat-endpoint.md): a turn streams Claude's text and tool call as inference.chunk / inference.tool / message
// events, and the next turn resumes Claude's own session, so the model sees the first turn again.
import assert from 'node:assert/strict';
import http from 'node:http';
import { describe, it } from 'node:test';
import { AnthropicServer, isAgentTurn, lastUserMessage, mentions, toolResult } from '../helpers/anthropic-server.js';
import { MODEL } from '../helpers/claude-agent.js';
import { claudeSandbox, claudeTemplateConfig, findClaude } from '../helpers/claude-cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';

const FIRST = 'CC-ENGINE-1 list the files';
const SECOND = 'CC-ENGINE-2 and again?';

function sse(port: number, token: string, body: object): Promise<{ event: string; data: any }[]> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify({ ...body, sse: true });
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/agents/coder-chat/chat',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (buf += c));
        res.on('end', () =>
          resolve(
            buf
              .split('\n\n')
              .filter((f) => f.startsWith('event: '))
              .map((f) => ({ event: /^event: (.*)$/m.exec(f)![1]!, data: JSON.parse(/^data: (.*)$/m.exec(f)![1]!) })),
          ),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('the claude-cli chat engine', () => {
  it(
    'streams a tool turn into the spec events and resumes Claude on the next turn',
    { timeout: 120_000 },
    async (t) => {
      const claude = await findClaude();
      if ('missing' in claude) {
        t.skip(claude.missing);
        return;
      }
      const api = await AnthropicServer.start({
        script: (req, { sideRequest }) => {
          if (sideRequest || !isAgentTurn(req.body)) return undefined;
          const last = lastUserMessage(req.body);
          if (toolResult(last, 'toolu_ls')) return { text: 'There is one file.', chunks: 3 };
          if (mentions(last, FIRST))
            return {
              text: 'Let me look.',
              toolUse: { name: 'Bash', id: 'toolu_ls', input: { command: 'echo one-file', description: 'List' } },
            };
          if (mentions(last, SECOND)) return { text: 'Still one file.' };
          return undefined;
        },
      });
      const sandbox = claudeSandbox({ baseUrl: api.url });
      const config =
        claudeTemplateConfig(claude.bin, sandbox, MODEL) + '    chat: { enabled: true, engine: claude-cli }\n';
      const d = await startTestDaemon({ config });
      t.after(async () => {
        await d.stop();
        await api.close();
        sandbox.cleanup();
      });
      const token = d.daemon.operatorToken;
      // The record is what the endpoint needs; its tmux session is stopped so only the engine talks to the API.
      assert.equal(
        (
          await request(d.tcp, 'POST', '/api/v1/agents/spawn', {
            token,
            body: { template: 'coder', name: 'coder-chat' },
          })
        ).status,
        201,
      );
      await request(d.tcp, 'POST', '/api/v1/agents/coder-chat/stop', { token });

      const events = await sse(d.daemon.port, token, { message: FIRST });
      const names = events.map((e) => e.event);
      assert.equal(names.at(-1), 'done', JSON.stringify(events.at(-1)));
      assert.ok(names.includes('inference.chunk'));
      assert.deepEqual(events.find((e) => e.event === 'inference.tool')?.data, { name: 'Bash' });
      const messages = events.filter((e) => e.event === 'message').map((e) => e.data);
      assert.deepEqual(
        messages.map((m) => [m.role, m.finishReason ?? null]),
        [
          ['assistant', 'tool_calls'],
          ['tool', null],
          ['assistant', 'stop'],
        ],
      );
      assert.equal(messages[0].tool_calls[0].function.name, 'Bash');
      assert.deepEqual(JSON.parse(messages[0].tool_calls[0].function.arguments), {
        command: 'echo one-file',
        description: 'List',
      });
      assert.match(messages[1].content, /one-file/);
      assert.equal(messages[2].content, 'There is one file.');
      const done = events.at(-1)!.data;
      assert.deepEqual(
        done.toolCalls.map((c: any) => [c.name, c.success]),
        [['Bash', true]],
      );
      assert.ok(done.tokenUsage.input > 0 && done.tokenUsage.cost > 0);
      const stored = (await request(d.tcp, 'GET', `/sessions/${done.session.id}/messages`, { token })).json.messages;
      assert.deepEqual(
        stored.filter((m: any) => m.role !== 'user'),
        messages,
      );

      const again = await request(d.tcp, 'POST', '/agents/coder-chat/chat', {
        token,
        body: { message: SECOND, sessionId: done.session.id },
      });
      assert.equal(again.status, 200, again.text);
      assert.equal(again.json.message.content, 'Still one file.');
      const turn2 = api.requests
        .filter((r) => isAgentTurn(r.body) && mentions(lastUserMessage(r.body), SECOND))
        .at(-1)!;
      assert.ok(JSON.stringify(turn2.body.messages).includes(FIRST), 'the resumed session carries the first turn');
    },
  );
});
