// A runtime: persistent task whose `owner` is another agent, run in a real supervised Claude Code against the scripted
// API (leo-chat.md, Agent tools and Reminders): what the task's agent posts and schedules during the task's turn lands
// in the owner's thread, filed under the run, and the reminder fires there too.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ManualClock } from '../../src/core/clock.js';
import { isAgentTurn, lastUserMessage, mentions, toolResult } from '../helpers/anthropic-server.js';
import { startClaudeAgent } from '../helpers/claude-agent.js';
import { request } from '../helpers/http.js';
import { runTaskNow } from '../helpers/task-runs.js';
import { until } from '../helpers/wait.js';

const PROMPT = 'Write the digest, marker LEO-PERSIST-7';
const POSTED = 'Digest: all quiet.';
const REMINDER = 'Check the digest again';
const POST_ID = 'toolu_persist_post';
const SCHEDULE_ID = 'toolu_persist_schedule';

describe('a persistent claude task owned by another agent', () => {
  it("posts and schedules into the owner's thread during its turn", { timeout: 180_000 }, async (t) => {
    let at = '';
    const agent = await startClaudeAgent(t, {
      agent: 'digest',
      extraConfig: [
        '  cat: { harness: shell, command: "exec cat" }',
        'tasks:',
        '  digest:',
        '    schedule: "0 6 * * *"',
        '    runtime: persistent',
        '    template: coder',
        '    owner: den',
        `    prompt: ${JSON.stringify(PROMPT)}`,
        '',
      ].join('\n'),
      script: (req, { sideRequest }) => {
        if (sideRequest || !isAgentTurn(req.body)) return undefined;
        const last = lastUserMessage(req.body);
        if (toolResult(last, SCHEDULE_ID)) return { text: 'done' };
        if (toolResult(last, POST_ID))
          return { toolUse: { name: 'mcp__leo__leo_chat_schedule', id: SCHEDULE_ID, input: { text: REMINDER, at } } };
        if (mentions(last, PROMPT))
          return { toolUse: { name: 'mcp__leo__leo_chat_post', id: POST_ID, input: { text: POSTED } } };
        return undefined;
      },
      beforeSpawn: async (d) => {
        const den = await request(d.tcp, 'POST', '/api/v1/agents/spawn', {
          token: d.daemon.operatorToken,
          body: { template: 'cat', name: 'den' },
        });
        assert.equal(den.status, 201, den.text);
      },
    });
    if (!agent) return;
    const { d, token } = agent;
    const clock = d.clock as ManualClock;
    at = new Date(clock.now() + 3600_000).toISOString();
    const thread = async (name: string) =>
      (await request(d.tcp, 'GET', `/api/v1/chat/${name}/messages?limit=200`, { token })).json.data.messages;

    const { runId, run } = await runTaskNow(d, 'digest');
    assert.equal(run.status, 'succeeded', run.error);
    const scheduled = agent.api.requests.find(
      (r) => isAgentTurn(r.body) && toolResult(lastUserMessage(r.body), SCHEDULE_ID),
    );
    assert.ok(scheduled, 'Claude sent the schedule result back');
    assert.notEqual(toolResult(lastUserMessage(scheduled.body), SCHEDULE_ID).is_error, true);

    const card = (await thread('den')).find((m: any) => m.text === POSTED);
    assert.ok(card, JSON.stringify(await thread('den')));
    assert.deepEqual([card.kind, card.task, card.run_id], ['task', 'digest', runId]);
    assert.equal((await thread('digest')).filter((m: any) => m.task === 'digest').length, 0);

    clock.advance(2 * 3600_000);
    const reminder = await until(
      'the reminder in den',
      async () => (await thread('den')).find((m: any) => m.text.startsWith(REMINDER)),
      10_000,
    );
    assert.deepEqual([reminder.kind, reminder.task, reminder.run_id], ['task', 'digest', runId]);
  });
});
