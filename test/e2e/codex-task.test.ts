// Oneshot tasks run headless with the real Codex CLI (`codex exec`) against the scripted Responses API: the model
// calls Leo's leo_chat_post (an MCP tool in Codex's `mcp__leo` namespace) and the post lands as a task card in the
// owner's thread; a run the model server refuses exits non-zero and posts a failure card.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { codexSandbox, codexTemplateConfig, findCodex } from '../helpers/codex-cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { HARNESS_MODEL } from '../helpers/harness-agent.js';
import { request } from '../helpers/http.js';
import { functionCallOutput, ResponsesServer, userPrompts } from '../helpers/responses-server.js';
import { runTaskNow } from '../helpers/task-runs.js';
import { until } from '../helpers/wait.js';

const POST_PROMPT = 'Collect the news and post it, marker LEO-TASK-5151';
const FAIL_PROMPT = 'This run is refused, marker LEO-TASK-FAIL';
const CALL_ID = 'call_task_post';
const POSTED = 'The news is in: all quiet.';

describe('oneshot codex tasks', () => {
  it('a run’s leo_chat_post becomes a task card; a failed run a failure card', { timeout: 150_000 }, async (t) => {
    const codex = await findCodex();
    if ('missing' in codex) {
      t.skip(codex.missing);
      return;
    }
    const api = await ResponsesServer.start({
      script: (req) => {
        const prompts = userPrompts(req.body).join('\n');
        if (prompts.includes(FAIL_PROMPT)) return { error: { status: 400, message: 'This model is not available.' } };
        if (!prompts.includes(POST_PROMPT)) return undefined;
        if (functionCallOutput(req.body, CALL_ID) !== undefined) return { text: 'posted' };
        return {
          functionCall: { name: 'leo_chat_post', namespace: 'mcp__leo', callId: CALL_ID, arguments: { text: POSTED } },
        };
      },
    });
    const sandbox = codexSandbox({ baseUrl: api.baseUrl, model: HARNESS_MODEL });
    const task = (name: string, prompt: string) => [
      `  ${name}:`,
      '    schedule: "0 6 * * *"',
      '    template: coder',
      `    prompt: ${JSON.stringify(prompt)}`,
      '    notify_on_fail: true',
    ];
    const config =
      codexTemplateConfig(codex.bin, sandbox, HARNESS_MODEL) +
      ['tasks:', ...task('news', POST_PROMPT), ...task('refused', FAIL_PROMPT), ''].join('\n');
    const d = await startTestDaemon({ config });
    t.after(async () => {
      await d.stop();
      await api.close();
      sandbox.cleanup();
    });
    const token = d.daemon.operatorToken;
    const thread = async () =>
      (await request(d.tcp, 'GET', '/api/v1/chat/assistant/messages', { token })).json.data.messages as any[];

    const news = await runTaskNow(d, 'news');
    assert.equal(news.run.status, 'succeeded', news.run.error);
    assert.deepEqual([news.run.harness, news.run.model], ['codex', HARNESS_MODEL]);
    const result = api
      .responseRequests()
      .map((r) => functionCallOutput(r.body, CALL_ID))
      .find((o) => o !== undefined);
    assert.ok(result && !/error|unsupported/i.test(result), `the post tool's result: ${result}`);
    const card = (await thread()).find((m) => m.text === POSTED);
    assert.ok(card, JSON.stringify(await thread()));
    assert.deepEqual([card.kind, card.task, card.run_id, card.direction], ['task', 'news', news.runId, 'out']);

    const refused = await runTaskNow(d, 'refused');
    assert.equal(refused.run.status, 'failed');
    // The card follows the run's failed state.
    const failure = await until(
      'the failure card',
      async () => (await thread()).find((m) => m.task === 'refused' && m.run_id === refused.runId),
      10_000,
      200,
    );
    assert.equal(failure.kind, 'task');
    // Codex prints its banner first: the card leads with the cause Codex printed last.
    assert.match(
      failure.text,
      /^\*\*Task failed: refused\*\*\nRun `[0-9A-Z]+` · 1 attempt\(s\)\n```\nexit 1: This model is not available\.\n/,
    );
  });
});
