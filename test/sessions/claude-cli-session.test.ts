// The claude-cli chat engine with the real Claude Code CLI against the scripted Anthropic API (issue 15 item 17): the
// session's cost adds up to the turn's, `reasoning` reaches Claude as its effort and thinking budget, and Leo's
// max_iterations stops a Claude turn that would go on calling tools; a temperature is refused, `continue` sends Claude
// no prompt of Leo's own, and a lost resume id replays Leo's stored history (issue 29 item 11).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AnthropicServer, isAgentTurn, lastUserMessage, mentions } from '../helpers/anthropic-server.js';
import { MODEL } from '../helpers/claude-agent.js';
import { claudeSandbox, claudeTemplateConfig, findClaude } from '../helpers/claude-cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { SessionResponse } from '../../src/wire/sessions.js';

const THINK = 'CC-SESSION-1 plan it';
const LOOP = 'CC-SESSION-2 keep going';
const REPLAY = 'CC-SESSION-3 what did I ask first?';

describe('claude-cli chat sessions', () => {
  it('cost, reasoning, continue, a lost resume id; max_iterations stops the loop', { timeout: 120_000 }, async (t) => {
    const claude = await findClaude();
    if ('missing' in claude) {
      t.skip(claude.missing);
      return;
    }
    const api = await AnthropicServer.start({
      script: (req, { sideRequest }) => {
        if (sideRequest || !isAgentTurn(req.body)) return undefined;
        const last = lastUserMessage(req.body);
        if (mentions(last, REPLAY)) return { text: 'You asked for a plan.' };
        if (mentions(last, THINK)) return { text: 'Here is the plan.' };
        if (mentions(last, LOOP) || JSON.stringify(last).includes('tool_result'))
          return { toolUse: { name: 'Bash', input: { command: 'echo again', description: 'Again' } } };
        return undefined;
      },
    });
    const sandbox = claudeSandbox({ baseUrl: api.url });
    const config =
      claudeTemplateConfig(claude.bin, sandbox, MODEL) +
      '    chat: { enabled: true, engine: claude-cli, max_iterations: 2 }\n';
    const d = await startTestDaemon({ config });
    t.after(async () => {
      await d.stop();
      await api.close();
      sandbox.cleanup();
    });
    assert.equal((await d.op('POST', '/api/v1/agents/spawn', { template: 'coder', name: 'cc' })).status, 201);
    await d.op('POST', '/api/v1/agents/cc/stop');

    const r = await d.op('POST', '/agents/cc/chat', {
      message: THINK,
      overrides: { reasoning: { effort: 'high', max_tokens: 4000 } },
    });
    assert.equal(r.status, 200, r.text);
    assert.ok(r.json.tokenUsage.cost > 0);
    const { session } = SessionResponse.parse((await d.op('GET', `/sessions/${r.json.sessionId}`)).json);
    assert.equal(session.cost, r.json.tokenUsage.cost, 'the session costs what its one turn cost');
    const sent = api.messageRequests().filter((q) => isAgentTurn(q.body) && mentions(lastUserMessage(q.body), THINK));
    const body = sent.at(-1)!.body;
    // Measured with the pinned 2.1.328: MAX_THINKING_TOKENS becomes the request's thinking budget. `--effort` is
    // taken but not sent for this model, so only the budget is asserted.
    assert.deepEqual(
      [body.thinking?.type, body.thinking?.budget_tokens],
      ['enabled', 4000],
      JSON.stringify(body.thinking),
    );

    // Issue 29 item 11: no temperature reaches Claude silently; `continue` sends no prompt of Leo's own; a lost
    // resume id replays Leo's stored history.
    const id = r.json.sessionId;
    const patched = await d.op('PATCH', `/sessions/${id}`, { temperature: 0.3 });
    assert.deepEqual([patched.status, patched.json.details], [400, { field: 'temperature' }], patched.text);
    const turnsBefore = api.messageRequests().length;
    const resumed = await d.op('POST', '/agents/cc/chat', { continue: true, sessionId: id });
    // Measured with 2.1.328: `-p --resume <id>` without a prompt resumes only a deferred tool, else Claude refuses.
    assert.deepEqual([resumed.status, resumed.json.code], [500, 'LLM_ERROR'], resumed.text);
    assert.match(resumed.json.error, /prompt/);
    assert.equal(
      api
        .messageRequests()
        .slice(turnsBefore)
        .filter((q) => isAgentTurn(q.body)).length,
      0,
      'Claude was sent nothing to answer',
    );
    // As after a turn stopped before Claude named its session.
    d.daemon.db.prepare('UPDATE chat_sessions SET resume_id = NULL WHERE id = ?').run(id);
    const replay = await d.op('POST', '/agents/cc/chat', { message: REPLAY, sessionId: id });
    assert.equal(replay.status, 200, replay.text);
    assert.equal(replay.json.message.content, 'You asked for a plan.');
    const replayed = JSON.stringify(
      api.messageRequests().filter((q) => isAgentTurn(q.body) && mentions(lastUserMessage(q.body), REPLAY))[0]!.body
        .messages,
    );
    for (const said of [THINK, 'Here is the plan.', '<conversation_history>'])
      assert.ok(replayed.includes(said), `the replayed turn carries ${said}`);
    const row = d.daemon.db.prepare('SELECT resume_id FROM chat_sessions WHERE id = ?').get(id) as {
      resume_id: string | null;
    };
    assert.ok(row.resume_id, "the replayed turn's Claude session is resumed from now on");
    // A resume id whose Claude transcript is gone replays the same way.
    d.daemon.db
      .prepare('UPDATE chat_sessions SET resume_id = ? WHERE id = ?')
      .run('00000000-0000-4000-8000-000000000000', id);
    const lost = await d.op('POST', '/agents/cc/chat', { message: `${REPLAY} once more`, sessionId: id });
    assert.equal(lost.status, 200, lost.text);
    const lostTurn = api
      .messageRequests()
      .filter((q) => isAgentTurn(q.body) && mentions(lastUserMessage(q.body), `${REPLAY} once more`))[0]!;
    assert.ok(JSON.stringify(lostTurn.body.messages).includes('You asked for a plan.'), 'the lost session replayed');

    const loop = await d.op('POST', '/agents/cc/chat', { message: LOOP });
    assert.deepEqual([loop.status, loop.json.code], [500, 'MAX_ITERATIONS'], loop.text);
    const turns = api.messageRequests().filter((q) => isAgentTurn(q.body) && JSON.stringify(q.body).includes(LOOP));
    assert.ok(turns.length <= 3, `Claude was stopped after its second iteration (${turns.length} model calls)`);
  });
});
