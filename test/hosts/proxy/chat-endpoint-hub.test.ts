// The agent chat endpoint (agent-chat-endpoint.md) for another machine's agent through the hub (issue 31): a turn on
// `bot@box` runs on the host in each of the endpoint's modes, and what the hub answers names the agent `bot@box`. Real
// daemons on loopback ports and the scripted OpenAI-compatible server.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SseParser } from '../../../src/wire/sse-parser.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { request } from '../../helpers/http.js';
import { OpenAiServer } from '../../helpers/openai-server.js';
import { pairHost } from '../../helpers/pair-host.js';

describe('POST /agents/bot@box/chat through the hub', () => {
  let host: TestDaemon;
  let hub: TestDaemon;
  let llm: OpenAiServer;
  const chat = (body: object, token = hub.daemon.operatorToken) =>
    request(hub.tcp, 'POST', '/agents/bot@box/chat', { token, body });

  before(async () => {
    llm = await OpenAiServer.start({ defaultReply: { text: 'Hello from the box.' } });
    const engine = `{ enabled: true, engine: openai, base_url: "${llm.baseUrl}", api_key_env: KEY, model: gpt-test }`;
    host = await startTestDaemon({
      config: `environments: { keys: { KEY: sk-test } }\ntemplates:\n  bot: { harness: shell, command: "exec cat", environments: [keys], chat: ${engine} }\n`,
    });
    hub = await startTestDaemon();
    assert.equal((await host.op('POST', '/api/v1/agents/spawn', { template: 'bot', name: 'bot' })).status, 201);
    await pairHost(hub, host, 'box');
  });
  after(async () => {
    await Promise.all([host.stop(), hub.stop()]);
    await llm.close();
  });

  it('JSON: the turn runs on the host, its done names bot@box, and its session continues through the hub', async () => {
    llm.enqueue({ text: 'Nice to meet you, Alice.' });
    const first = await chat({ message: 'My name is Alice.' });
    assert.equal(first.status, 200, first.text);
    assert.equal(first.json.message.content, 'Nice to meet you, Alice.');
    assert.equal(first.json.done.agentName, 'bot@box');
    assert.equal(first.json.done.session.agent_name, 'bot@box');
    llm.enqueue({ text: 'Your name is Alice.' });
    const second = await chat({ message: 'What is my name?', sessionId: first.json.sessionId });
    assert.equal(second.status, 200, second.text);
    assert.equal(second.json.sessionId, first.json.sessionId);
    assert.equal(second.json.done.session.message_count, 4, 'one session on the host, two turns');
    const onHost = await host.op('GET', `/sessions/${first.json.sessionId}`);
    assert.equal(onHost.json.session.agent_name, 'bot', 'the host keeps its own name');
    const listed = await request(hub.tcp, 'GET', '/agents/bot@box/sessions', { token: hub.daemon.operatorToken });
    assert.equal(listed.status, 200, listed.text);
    assert.deepEqual(
      listed.json.sessions.map((s: { id: string; agent_name: string }) => [s.id, s.agent_name]),
      [[first.json.sessionId, 'bot@box']],
    );
  });

  it('SSE: the host’s stream is passed on as it comes, its done frame naming bot@box', async () => {
    llm.enqueue({ text: 'Streaming from the box.', chunks: 4 });
    const res = await fetch(`http://127.0.0.1:${hub.tcp.port}/agents/bot@box/chat`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hub.daemon.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'Stream it', sse: true }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const events = new SseParser().feed(await res.text());
    const chunks = events.filter((e) => e.event === 'inference.chunk').map((e) => JSON.parse(e.data).content);
    assert.equal(chunks.join(''), 'Streaming from the box.');
    const done = events.at(-1)!;
    assert.equal(done.event, 'done');
    assert.equal(JSON.parse(done.data).agentName, 'bot@box');
  });

  it('fire-and-forget answers 202 from the host; an unknown agent is the host’s 404; devices are refused first', async () => {
    const accepted = await chat({ message: 'Kick it off', fireAndForget: true });
    assert.equal(accepted.status, 202, accepted.text);
    assert.equal(accepted.json.accepted, true);
    assert.match(accepted.json.sessionId, /^sess_/);
    const ghost = await request(hub.tcp, 'POST', '/agents/ghost@box/chat', {
      token: hub.daemon.operatorToken,
      body: { message: 'anyone?' },
    });
    assert.equal(ghost.status, 404, ghost.text);
    const phone = await hub.op('POST', '/api/v1/devices', { name: 'phone' });
    const refused = await chat({ message: 'from the phone' }, phone.json.data.token);
    assert.equal(refused.status, 403, refused.text);
  });
});
