// Issue 20 item 9: what the agent chat endpoint's openai engine may put into a session's history. A hard link is a
// second name for a file, which the path rule (nothing under state/, never leo.yaml) did not see: @-mentions and
// read_file attached state/api.token through one. And `bash` ran with the daemon's whole environment.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { OpenAiServer, lastUserText } from '../helpers/openai-server.js';

/** A secret in the daemon's own environment, as the owner's login shell can leave one there. */
const DAEMON_SECRET = ['LEO_PROBE_SECRET', 'AWS_SECRET_ACCESS_KEY'] as const;

describe("hard links and bash do not bring Leo's secrets into a session", () => {
  let t: TestDaemon;
  let llm: OpenAiServer;
  let workspace = '';
  /** Runs one turn in which the model calls `tool` once, and answers the tool message the engine sent back. */
  const toolResult = async (name: string, args: object): Promise<string> => {
    llm.enqueue({ toolCalls: [{ name, arguments: args }] }, { text: 'Done.' });
    const r = await t.op('POST', '/agents/bot/chat', { message: `run ${name}` });
    assert.equal(r.status, 200, r.text);
    const sent = llm.completionRequests().at(-1)!.body.messages as { role: string; content: string }[];
    return sent.filter((m) => m.role === 'tool').at(-1)!.content;
  };

  before(async () => {
    for (const k of DAEMON_SECRET) process.env[k] = `daemon-env-secret-${k}`;
    llm = await OpenAiServer.start({ defaultReply: { text: 'OK.' } });
    t = await startTestDaemon({
      config: `
environments:
  keys: { OPENAI_KEY: sk-test-123, PROJECT_FLAG: for-the-agent }
templates:
  bot:
    harness: shell
    command: "exec cat"
    environments: [keys]
    chat: { enabled: true, engine: openai, base_url: "${llm.baseUrl}", api_key_env: OPENAI_KEY, model: gpt-test }
`,
    });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'bot', name: 'bot' })).status, 201);
    workspace = (await t.op('GET', '/api/v1/agents/bot')).json.data.workspace;
    fs.linkSync(path.join(t.home, 'state', 'api.token'), path.join(workspace, 'token-copy'));
    fs.linkSync(path.join(t.home, 'leo.yaml'), path.join(workspace, 'config-copy'));
    fs.writeFileSync(path.join(workspace, 'plan.md'), 'ship it');
  });
  after(async () => {
    for (const k of DAEMON_SECRET) delete process.env[k];
    await t.stop();
    await llm.close();
  });

  it('an @-mention of a hard link to state/api.token or leo.yaml attaches nothing of it', async () => {
    llm.enqueue({ text: 'Read.' });
    const r = await t.op('POST', '/agents/bot/chat', { message: 'See @plan.md, @token-copy and @config-copy.' });
    assert.equal(r.status, 200, r.text);
    const sent = lastUserText(llm.completionRequests().at(-1)!.body) ?? '';
    assert.match(sent, /## @plan\.md \(file/, 'an ordinary file is still attached');
    assert.doesNotMatch(sent, /token-copy \(file|config-copy \(file/);
    assert.equal(sent.includes(t.daemon.operatorToken), false);
    assert.equal(sent.includes('sk-test-123'), false);
  });

  it('read_file refuses a hard link to state/api.token or leo.yaml', async () => {
    for (const file of ['token-copy', 'config-copy']) {
      const out = await toolResult('read_file', { path: file });
      assert.match(out, new RegExp(`access denied: ${file}`));
      assert.equal(out.includes(t.daemon.operatorToken) || out.includes('sk-test-123'), false, out);
    }
    assert.match(await toolResult('read_file', { path: 'plan.md' }), /ship it/);
  });

  it("bash runs in the workspace with the agent's environments, no LEO_* variable and none of the daemon's secrets", async () => {
    const out = await toolResult('bash', { command: 'pwd; env' });
    assert.equal(out.split('\n')[0], fs.realpathSync(workspace));
    assert.match(out, /^PROJECT_FLAG=for-the-agent$/m, "the agent's own environment is there");
    assert.match(out, /^PATH=/m);
    assert.doesNotMatch(out, /^LEO_/m);
    for (const k of DAEMON_SECRET) assert.equal(out.includes(`daemon-env-secret-${k}`), false, `${k} leaked`);
    assert.equal(out.includes(t.daemon.operatorToken) || out.includes(t.daemon.agentToken), false);
  });
});
