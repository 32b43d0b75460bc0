// A oneshot task run headless with the real Claude Code CLI (`claude -p`) against the scripted API server: the model
// calls Leo's leo_chat_post, and the post lands as a task card (task, run_id) in the task owner's thread.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnthropicServer, isAgentTurn, lastUserMessage, mentions, toolResult } from '../helpers/anthropic-server.js';
import { MODEL } from '../helpers/claude-agent.js';
import { claudeSandbox, claudeTemplateConfig, findClaude } from '../helpers/claude-cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { runTaskNow } from '../helpers/task-runs.js';

const PROMPT = 'Collect the news and post it, marker LEO-TASK-5150';
const TOOL_ID = 'toolu_task_post';
const POSTED = 'The news is in: all quiet.';

describe('a oneshot claude task', () => {
  it('runs headless and its leo_chat_post becomes a task card in the owner thread', { timeout: 120_000 }, async (t) => {
    const claude = await findClaude();
    if ('missing' in claude) {
      t.skip(claude.missing);
      return;
    }
    const api = await AnthropicServer.start({
      script: (req, { sideRequest }) => {
        if (sideRequest) return undefined;
        const last = lastUserMessage(req.body);
        if (toolResult(last, TOOL_ID)) return { text: 'posted' };
        if (mentions(last, PROMPT))
          return { toolUse: { name: 'mcp__leo__leo_chat_post', id: TOOL_ID, input: { text: POSTED } } };
        return undefined;
      },
    });
    const sandbox = claudeSandbox({ baseUrl: api.url });
    const config =
      claudeTemplateConfig(claude.bin, sandbox, MODEL) +
      [
        'tasks:',
        '  news:',
        '    schedule: "0 6 * * *"',
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
    const { runId, run } = await runTaskNow(d, 'news');
    assert.equal(run.status, 'succeeded', run.error);
    assert.deepEqual([run.harness, run.model], ['claude', MODEL]);
    const turn = api.requests.find((r) => isAgentTurn(r.body) && toolResult(lastUserMessage(r.body), TOOL_ID));
    assert.ok(turn, 'Claude sent the tool result back');
    assert.notEqual(toolResult(lastUserMessage(turn.body), TOOL_ID).is_error, true);
    const thread = (await request(d.tcp, 'GET', '/api/v1/chat/assistant/messages', { token })).json.data.messages;
    const card = thread.find((m: any) => m.text === POSTED);
    assert.ok(card, JSON.stringify(thread));
    assert.deepEqual([card.kind, card.task, card.run_id, card.direction], ['task', 'news', runId, 'out']);
    // The run's turn is metered into its owner's usage, once.
    const counted = () =>
      d.daemon.db
        .prepare('SELECT harness, model, input_tokens, output_tokens FROM usage_turns WHERE agent = ?')
        .all('assistant') as { harness: string; model: string; input_tokens: number; output_tokens: number }[];
    assert.equal(counted().length, 1, JSON.stringify(counted()));
    assert.deepEqual([counted()[0]!.harness, counted()[0]!.model], ['claude', MODEL]);
    assert.ok(counted()[0]!.input_tokens + counted()[0]!.output_tokens > 0);
  });
});
