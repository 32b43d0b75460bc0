// A persistent task asking in its own agent's thread, with the real Claude Code CLI against the scripted API: the
// task's turn calls leo_chat_ask, and because the task's owner is the asking agent itself (a late answer has somewhere
// to go) the ask keeps no deadline, like any agent's (leo-chat.md, Ask lifecycle). Answered at a person's pace.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AnthropicServer, lastUserMessage, mentions, toolResult } from '../helpers/anthropic-server.js';
import { MODEL } from '../helpers/claude-agent.js';
import { claudeSandbox, claudeTemplateConfig, findClaude } from '../helpers/claude-cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { fireTask, runFinished } from '../helpers/task-runs.js';
import { until } from '../helpers/wait.js';

const PROMPT = 'Pick the colour of the day, marker LEO-PERSIST-2207';
const TOOL_ID = 'toolu_persistent_ask';

describe('a persistent claude task asking in its own thread', () => {
  it('asks with no deadline, and the answer returns to the blocked call', { timeout: 150_000 }, async (t) => {
    const claude = await findClaude();
    if ('missing' in claude) {
      t.skip(claude.missing);
      return;
    }
    const api = await AnthropicServer.start({
      script: (req, { sideRequest }) => {
        if (sideRequest) return undefined;
        const last = lastUserMessage(req.body);
        if (toolResult(last, TOOL_ID)) return { text: 'Blue it is.' };
        if (mentions(last, PROMPT))
          return {
            toolUse: {
              name: 'mcp__leo__leo_chat_ask',
              id: TOOL_ID,
              input: { question: 'Which colour today?', options: ['Red', 'Blue'] },
            },
          };
        return undefined;
      },
    });
    const sandbox = claudeSandbox({ baseUrl: api.url });
    const config =
      claudeTemplateConfig(claude.bin, sandbox, MODEL) +
      [
        'tasks:',
        '  colour:',
        '    schedule: "0 6 * * *"',
        '    runtime: persistent',
        '    template: coder',
        `    prompt: ${JSON.stringify(PROMPT)}`,
        '',
      ].join('\n');
    const d = await startTestDaemon({ config });
    t.after(async () => {
      await d.stop();
      await api.close();
      sandbox.cleanup();
    });
    const token = d.daemon.operatorToken;
    const runId = await fireTask(d, 'colour');
    const ask = await until(
      'the task turn to ask',
      async () =>
        (await request(d.tcp, 'GET', '/api/v1/chat/colour/messages', { token })).json.data?.messages.find(
          (m: any) => m.kind === 'ask',
        ),
      90_000,
      250,
    );
    assert.deepEqual([ask.state, ask.task, ask.run_id], ['open', 'colour', runId]);
    assert.equal(ask.deadline, undefined, 'the owner is the asker: no 300 s unattended deadline');
    await sleep(5500);
    const answered = await request(d.tcp, 'POST', `/api/v1/chat/colour/messages/${ask.id}/answer`, {
      token,
      body: { values: ['Blue'] },
    });
    assert.equal(answered.status, 200, answered.text);
    const run = await runFinished(d, 'colour', runId, 60_000);
    assert.equal(run.status, 'succeeded', run.error);
    const result = api.requests.map((r) => toolResult(lastUserMessage(r.body), TOOL_ID)).find((b) => b !== undefined);
    assert.match(JSON.stringify(result), /\\"labels\\":\[\\"Blue\\"\]/, 'the blocked call got the answer');
  });
});
