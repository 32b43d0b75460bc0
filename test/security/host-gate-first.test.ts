import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { exchange, parseAnswer } from '../fuzz/raw-socket.js';

/**
 * Issue 20 item 8: the router answers a broken %-escape (400) and an over-long path parameter (414) before any hook
 * runs. A DNS-rebinding page (Host: evil.example) must not be able to tell those answers from the Host gate's: it
 * gets the same 403 forbidden_host as on every other URL.
 */
describe('the Host/Origin gate comes before the router errors', () => {
  let t: TestDaemon;
  before(async () => {
    t = await startTestDaemon();
  });
  after(() => t.stop());

  const raw = async (path: string, headers: string) => {
    const { text } = await exchange(t.tcp, [`GET ${path} HTTP/1.1\r\n${headers}Connection: close\r\n\r\n`], {
      maxMs: 5000,
    });
    return parseAnswer(text);
  };
  const badEscape = '/api/v1/agents/%zz';
  const longParam = `/api/v1/agents/${'a'.repeat(2000)}`;

  it('a foreign Host or Origin gets 403 forbidden_host on both', async () => {
    for (const path of [badEscape, longParam])
      for (const headers of [
        'Host: evil.example\r\n',
        'Host: evil.example:8370\r\n',
        'Host: localhost\r\nOrigin: http://evil.example\r\n',
      ]) {
        const answer = await raw(path, headers);
        assert.equal(answer.status, 403, `${path.slice(0, 30)} ${headers}: ${JSON.stringify(answer.body)}`);
        assert.equal((answer.body as { code: string }).code, 'forbidden_host');
      }
  });

  it('with a good Host they keep their 400 and 414', async () => {
    const escape = await raw(badEscape, 'Host: 127.0.0.1\r\n');
    assert.equal(escape.status, 400);
    assert.equal((escape.body as { code: string }).code, 'bad_url');
    const long = await raw(longParam, 'Host: localhost\r\n');
    assert.equal(long.status, 414);
    assert.equal((long.body as { code: string }).code, 'param_too_long');
  });
});
