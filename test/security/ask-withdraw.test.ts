// Issue 20 item 6: the agent token may withdraw only the asks the agent's own tools opened. A questions card is the
// daemon's (Claude's AskUserQuestion, held by the PermissionRequest hook for the owner): an agent that withdrew it
// left the owner's answer refused (409) and the hook waiting out its deadline.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { LEO_BIN } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { agentSessionVariable } from './principals.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;
const QUESTIONS = [{ question: 'Which size?', header: 'Size', options: [{ label: 'S' }, { label: 'L' }] }];

describe("an agent cannot withdraw the owner's questions card", () => {
  let t: TestDaemon;
  let agentToken: string;
  const asAgent = (p: string, body: unknown) =>
    request(t.tcp, 'POST', `/api/agent/den${p}`, { token: agentToken, body });
  const openOf = (kind: string, type: string) =>
    until(
      `an open ${type} ask`,
      async () =>
        (await t.op('GET', '/api/v1/chat/den/messages?limit=50')).json.data.messages.find(
          (m: any) => m.kind === kind && m.state === 'open' && m.input?.type === type,
        ),
      10_000,
      50,
    );

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    agentToken = agentSessionVariable(t.daemon.paths, 'den', 'LEO_AGENT_TOKEN');
  });
  after(() => t.stop());

  it('the withdraw is refused (403 not_own_ask), the card stays open and the owner’s answer reaches the hook', async () => {
    // What Claude's PermissionRequest hook does for an AskUserQuestion: the real `leo hook` process, held on the socket.
    const hook = spawn(process.execPath, [LEO_BIN, 'hook', 'permission-request'], {
      env: { ...process.env, LEO_AGENT: 'den', LEO_SOCKET: t.daemon.paths.socketFile },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    let stdout = '';
    hook.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    const exited = new Promise((resolve) => hook.on('close', resolve));
    hook.stdin.end(
      JSON.stringify({
        hook_event_name: 'PermissionRequest',
        session_id: 's1',
        tool_name: 'AskUserQuestion',
        tool_input: { questions: QUESTIONS },
      }),
    );
    const card = await openOf('ask', 'questions');

    const r = await asAgent('/chat/ask/withdraw', { message_id: card.id });
    assert.equal(r.status, 403, r.text);
    assert.deepEqual([r.json.ok, r.json.code], [false, 'not_own_ask']);
    assert.equal(
      (await t.op('GET', '/api/v1/chat/den/messages?limit=50')).json.data.messages.find((m: any) => m.id === card.id)
        .state,
      'open',
    );

    const answer = await t.op('POST', `/api/v1/chat/den/messages/${card.id}/answer`, {
      answers: { q1: { values: ['L'] } },
    });
    assert.equal(answer.status, 200, answer.text);
    await exited;
    assert.deepEqual(JSON.parse(stdout).hookSpecificOutput.decision.updatedInput.answers, { 'Which size?': 'L' });
  });

  it("the agent's own ask can still be withdrawn, and its blocked call returns at once", async () => {
    const call = asAgent('/chat/ask', {
      question: 'Ship it?',
      options: [{ value: 'y', label: 'Yes' }],
    });
    const ask = await openOf('ask', 'buttons');
    const r = await asAgent('/chat/ask/withdraw', { message_id: ask.id });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.data, { message_id: ask.id, withdrawn: true });
    assert.equal((await call).json.data.closed_reason, 'withdrawn');
  });
});
