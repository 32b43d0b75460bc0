// The hub's proxy rules (issue 31, Actions are proxied), pure: which requests go to a host, the path and body the host
// gets, and how its answer is renamed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  forwardOf,
  hostUnreachable,
  renamedAnswer,
  ruleFor,
  unknownHost,
  type Incoming,
} from '../../../src/hosts/proxy/proxy-rules.js';

const rule = (method: string, url: string) => {
  const r = ruleFor(method, url);
  assert.ok(r, `${method} ${url} has a rule`);
  return r;
};
const incoming = (url: string, params: Record<string, string>, query = '', body?: unknown): Incoming => ({
  url,
  params,
  query,
  body,
});

describe('proxy rules', () => {
  it('name the agent-scoped routes; HEAD takes its GET’s rule; the hub’s own routes have none', () => {
    assert.equal(
      ruleFor('HEAD', '/api/v1/chat/:agent/attachments/:id'),
      rule('GET', '/api/v1/chat/:agent/attachments/:id'),
    );
    assert.equal(ruleFor('GET', '/api/v1/chat/threads'), null);
    assert.equal(ruleFor('PUT', '/api/v1/chat/:agent/presence'), null, 'the hub keeps who looks at a thread');
    assert.equal(ruleFor('POST', '/api/agent/:name/message'), null, 'an agent calls its own daemon');
  });

  it('put the agent’s own name in the path, every other parameter and the query string kept', () => {
    const answer = '/api/v1/chat/:agent/messages/:id/answer';
    assert.deepEqual(forwardOf(rule('POST', answer), incoming(answer, { agent: 'den@box', id: '01ABC' })), {
      host: 'box',
      path: '/api/v1/chat/den/messages/01ABC/answer',
    });
    const page = '/api/v1/chat/:agent/messages';
    assert.deepEqual(forwardOf(rule('GET', page), incoming(page, { agent: 'den@box' }, 'limit=2&before=01X')), {
      host: 'box',
      path: '/api/v1/chat/den/messages?limit=2&before=01X',
    });
    const diff = '/api/v1/agents/:name/changes/diff';
    assert.equal(
      forwardOf(rule('GET', diff), incoming(diff, { name: 'web-1@cloud-vm' }, 'path=src%2Fa+b.ts'))?.path,
      '/api/v1/agents/web-1/changes/diff?path=src%2Fa+b.ts',
    );
  });

  it('leave a bare name, or what is no address, to the hub itself', () => {
    const stop = '/api/v1/agents/:name/stop';
    assert.equal(forwardOf(rule('POST', stop), incoming(stop, { name: 'den' })), null);
    assert.equal(forwardOf(rule('POST', stop), incoming(stop, { name: 'den@Box' })), null, 'validation says why');
    assert.equal(forwardOf(rule('POST', stop), incoming(stop, { name: 'a@b@c' })), null);
  });

  it('rewrite an upload’s agent in the query, and take a host out of the query or a spawn’s body', () => {
    const uploads = '/api/v1/chat/uploads';
    assert.deepEqual(forwardOf(rule('POST', uploads), incoming(uploads, {}, 'filename=a%20b.txt&agent=den%40box')), {
      host: 'box',
      path: '/api/v1/chat/uploads?filename=a+b.txt&agent=den',
    });
    assert.equal(
      forwardOf(rule('POST', uploads), incoming(uploads, {}, 'filename=a.txt')),
      null,
      'unclaimed: the hub’s',
    );
    const templates = '/api/v1/templates';
    assert.deepEqual(forwardOf(rule('GET', templates), incoming(templates, {}, 'host=box')), {
      host: 'box',
      path: '/api/v1/templates',
    });
    const spawn = '/api/v1/agents/spawn';
    const body = { template: 'cat', name: 'owl', host: 'box', client_id: 'kept' };
    assert.deepEqual(forwardOf(rule('POST', spawn), incoming(spawn, {}, '', body)), {
      host: 'box',
      path: '/api/v1/agents/spawn',
      body: { template: 'cat', name: 'owl', client_id: 'kept' },
    });
    assert.equal(forwardOf(rule('POST', spawn), incoming(spawn, {}, '', { template: 'cat' })), null);
    assert.equal(forwardOf(rule('POST', spawn), incoming(spawn, {}, '', { template: 'cat', host: 'Box!' })), null);
  });

  it('rename a successful answer’s agents to name@host, and pass an error on as the host said it', () => {
    const send = rule('POST', '/api/v1/chat/:agent/messages');
    const message = { id: 'M1', agent: 'den', text: 'hi', attachments: [] };
    assert.deepEqual(renamedAnswer(send, { ok: true, data: message }, 'box'), {
      ok: true,
      data: { ...message, agent: 'den@box' },
    });
    const refused = { ok: false, error: 'no agent named "den"', code: 'not_found' };
    assert.equal(renamedAnswer(send, refused, 'box'), refused);
    const page = rule('GET', '/api/v1/chat/:agent/messages');
    assert.deepEqual(
      renamedAnswer(page, { ok: true, data: { messages: [message], older: null, newer: null } }, 'box'),
      {
        ok: true,
        data: { messages: [{ ...message, agent: 'den@box' }], older: null, newer: null },
      },
    );
    const removed = rule('DELETE', '/api/v1/agents/:name');
    assert.deepEqual(renamedAnswer(removed, { ok: true, data: { name: 'den', removed: true } }, 'box'), {
      ok: true,
      data: { name: 'den@box', removed: true },
    });
    const spawn = rule('POST', '/api/v1/agents/spawn');
    assert.deepEqual(renamedAnswer(spawn, { ok: true, data: { name: 'owl', status: 'running' } }, 'box'), {
      ok: true,
      data: { name: 'owl@box', status: 'running', host: 'box' },
    });
    const templates = rule('GET', '/api/v1/templates');
    const list = { ok: true, data: [{ name: 'cat' }] };
    assert.equal(renamedAnswer(templates, list, 'box'), list);
  });

  it('rename the chat endpoint’s bare answers and its stream’s done frame; a terminal’s frames name the agent', () => {
    const session = { id: 'sess_1', agent_name: 'bot', mode: 'chat', status: 'active' };
    const done = { session, agentName: 'bot', model: 'gpt', iterations: 1 };
    const chat = rule('POST', '/agents/:name/chat');
    assert.equal(chat.waits, true, 'a turn answers when it ends');
    assert.deepEqual(renamedAnswer(chat, { sessionId: 'sess_1', message: { content: 'hi' }, done }, 'box'), {
      sessionId: 'sess_1',
      message: { content: 'hi' },
      done: { ...done, agentName: 'bot@box', session: { ...session, agent_name: 'bot@box' } },
    });
    const accepted = { accepted: true, sessionId: 'sess_1' };
    assert.deepEqual(renamedAnswer(chat, accepted, 'box'), accepted, 'a 202 names no agent');
    const refused = { ok: false, error: 'no agent named "bot"', code: 'AGENT_NOT_FOUND' };
    assert.equal(renamedAnswer(chat, refused, 'box'), refused);
    assert.deepEqual(chat.frames?.('done', done as never, 'box'), {
      ...done,
      agentName: 'bot@box',
      session: { ...session, agent_name: 'bot@box' },
    });
    const chunk = { content: 'Hel' };
    assert.equal(chat.frames?.('inference.chunk', chunk as never, 'box'), chunk);
    const sessions = rule('GET', '/agents/:name/sessions');
    assert.deepEqual(renamedAnswer(sessions, { sessions: [session] }, 'box'), {
      sessions: [{ ...session, agent_name: 'bot@box' }],
    });
    const stream = rule('GET', '/api/v1/agents/:name/terminal/stream');
    assert.deepEqual(stream.frames?.('ended', { agent: 'den', reason: 'stopped' } as never, 'box'), {
      agent: 'den@box',
      reason: 'stopped',
    });
    assert.deepEqual(stream.frames?.('other', { cols: 80 } as never, 'box'), { cols: 80 }, 'no agent: as it is');
  });

  it('refuse an unknown host as an unknown agent (404), an unreachable one as 503 host_unreachable naming it', () => {
    assert.equal(unknownHost('nowhere').statusCode, 404);
    assert.match(unknownHost('nowhere').message, /no host named "nowhere"/);
    const down = hostUnreachable('box', 'ECONNREFUSED');
    assert.equal(down.statusCode, 503);
    assert.equal(down.code, 'host_unreachable');
    assert.equal(down.message, 'the host "box" did not answer: ECONNREFUSED');
    assert.deepEqual(down.details, { host: 'box' });
  });
});
