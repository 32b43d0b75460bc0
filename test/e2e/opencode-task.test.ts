// Oneshot tasks run headless with the real opencode CLI (`opencode run`) against the scripted chat-completions server
// (issue 18): the model calls Leo's leo_chat_post and the post lands as a task card (task, run_id) in the owner's
// thread; a run that fails (a model the user's provider does not have: opencode exits 1) posts a failure card.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { OpenAiServer, lastUserText, type RecordedRequest } from '../helpers/openai-server.js';
import { findOpencode, opencodeSandbox, opencodeTemplateConfig, OPENCODE_PROVIDER } from '../helpers/opencode-cli.js';
import { runTaskNow } from '../helpers/task-runs.js';
import { until } from '../helpers/wait.js';

const MODEL = 'gpt-test';
const PROMPT = 'Collect the news and post it, marker LEO-OC-TASK';
const POSTED = 'The news is in: opencode says all quiet.';

const agentTurn = (req: RecordedRequest) => Array.isArray(req.body?.tools) && req.body.tools.length > 0;

describe('oneshot opencode tasks (real CLI)', () => {
  it('a run’s leo_chat_post is a task card; a failed run posts a failure card', { timeout: 150_000 }, async (t) => {
    const opencode = await findOpencode();
    if ('missing' in opencode) {
      t.skip(opencode.missing);
      return;
    }
    const api = await OpenAiServer.start({
      script: (req) => {
        if (!agentTurn(req)) return { text: 'A title' };
        if ((req.body.messages as any[]).at(-1)?.role === 'tool') return { text: 'posted' };
        if ((lastUserText(req.body) ?? '').includes(PROMPT))
          return { toolCalls: [{ name: 'leo_leo_chat_post', arguments: { text: POSTED } }] };
        return undefined;
      },
    });
    const sandbox = opencodeSandbox({ baseUrl: api.baseUrl, model: MODEL });
    const config =
      opencodeTemplateConfig(opencode.bin, sandbox) +
      [
        'tasks:',
        '  news:',
        '    schedule: "0 6 * * *"',
        '    template: coder',
        `    prompt: ${JSON.stringify(PROMPT)}`,
        '  broken:',
        '    schedule: "0 7 * * *"',
        '    template: coder',
        `    model: ${JSON.stringify(`${OPENCODE_PROVIDER}/no-such-model`)}`,
        '    prompt: "This run cannot start"',
        '    notify_on_fail: true',
        '',
      ].join('\n');
    const d = await startTestDaemon({ config });
    t.after(async () => {
      await d.stop();
      await api.close();
      sandbox.cleanup();
    });
    const token = d.daemon.operatorToken;
    const thread = async () =>
      (await request(d.tcp, 'GET', '/api/v1/chat/assistant/messages', { token })).json.data.messages as any[];

    const { runId: newsRun, run: news } = await runTaskNow(d, 'news');
    assert.equal(news.status, 'succeeded', news.error);
    assert.deepEqual([news.harness, news.model], ['opencode', `${OPENCODE_PROVIDER}/${MODEL}`]);
    const card = (await thread()).find((m) => m.text === POSTED);
    assert.ok(card, JSON.stringify(await thread()));
    assert.deepEqual([card.kind, card.task, card.run_id, card.direction], ['task', 'news', newsRun, 'out']);

    const { runId: brokenRun, run: broken } = await runTaskNow(d, 'broken');
    assert.equal(broken.status, 'failed');
    const failure = await until(
      'the failure card',
      async () => (await thread()).find((m) => m.task === 'broken' && m.run_id === brokenRun),
      10_000,
    );
    assert.equal(failure.kind, 'task');
    assert.match(failure.text, /^\*\*Task failed: broken\*\*/);
    assert.match(failure.text, new RegExp(`Run \`${brokenRun}\` · 1 attempt\\(s\\)`));
  });
});
