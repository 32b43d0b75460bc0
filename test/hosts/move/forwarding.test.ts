// A send to a moved agent's old address (issue 32), pure: the hub follows the dormant records a move left to the
// agent's new address, and its proxy rules send only messages and answers there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forwarder, type MovedMark } from '../../../src/hosts/move/forwarding.js';
import { forwardOf, ruleFor } from '../../../src/hosts/proxy/proxy-rules.js';
import { parseAddress } from '../../../src/wire/agent-address.js';

const hub = (local: Record<string, MovedMark>, remote: Record<string, MovedMark>, follows = ['box', 'cloud', 'gpu']) =>
  forwarder({
    local: (name) => local[name] ?? null,
    remote: (address) => remote[address] ?? null,
    follows: (host) => follows.includes(host),
  });
const at = (address: string) => parseAddress(address)!;

describe('forwarding to a moved agent', () => {
  it('follows the dormant records, the hub’s own and its hosts’, to where the agent runs now', () => {
    const moved = hub(
      { own: { moved_to: 'box', moved_as: 'own2' } },
      { 'den@box': { moved_to: 'cloud' }, 'den@cloud': { moved_to: 'gpu', moved_as: 'den-gpu' }, 'owl@box': {} },
    );
    assert.deepEqual(moved(at('own')), { name: 'own2', host: 'box' });
    assert.deepEqual(moved(at('den@box')), { name: 'den-gpu', host: 'gpu' }, 'moved on from cloud too');
    assert.equal(moved(at('owl@box')), null, 'an agent that lives there');
    assert.equal(moved(at('nobody@box')), null);
  });

  it('stops at a host the hub does not follow (its daemon answers where it went), and at a loop', () => {
    const away = hub({}, { 'den@box': { moved_to: 'cloud' }, 'den@cloud': { moved_to: 'elsewhere' } });
    assert.deepEqual(away(at('den@box')), { name: 'den', host: 'cloud' });
    const loop = hub({}, { 'den@box': { moved_to: 'cloud' }, 'den@cloud': { moved_to: 'box' } });
    assert.deepEqual(loop(at('den@box')), { name: 'den', host: 'cloud' });
  });

  it('sends messages and answers to the new address; reads and controls stay with the record left behind', () => {
    const moved = hub({ own: { moved_to: 'box' } }, { 'den@box': { moved_to: 'cloud', moved_as: 'den2' } });
    const send = (method: string, url: string, params: Record<string, string>) =>
      forwardOf(ruleFor(method, url)!, { url, params, query: '', body: { text: 'hi' } }, moved);
    const cases: [method: string, url: string, params: Record<string, string>, to: string | null][] = [
      ['POST', '/api/v1/chat/:agent/messages', { agent: 'den@box' }, 'cloud /api/v1/chat/den2/messages'],
      // The hub's own agent that moved to a host.
      ['POST', '/api/v1/chat/:agent/messages', { agent: 'own' }, 'box /api/v1/chat/own/messages'],
      [
        'POST',
        '/api/v1/chat/:agent/messages/:id/answer',
        { agent: 'den@box', id: '01ASK' },
        'cloud /api/v1/chat/den2/messages/01ASK/answer',
      ],
      ['POST', '/api/v1/agents/:name/message', { name: 'den@box' }, 'cloud /api/v1/agents/den2/message'],
      // The old thread is read where it is; a control of the record left behind stays on the hub.
      ['GET', '/api/v1/chat/:agent/messages', { agent: 'den@box' }, 'box /api/v1/chat/den/messages'],
      ['POST', '/api/v1/agents/:name/stop', { name: 'own' }, null],
    ];
    for (const [method, url, params, to] of cases) {
      const forward = send(method, url, params);
      assert.equal(forward && `${forward.host} ${forward.path}`, to, `${method} ${url} ${JSON.stringify(params)}`);
    }
  });
});
