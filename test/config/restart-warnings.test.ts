import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultConfig } from '../../src/config/load.js';
import { restartWarnings } from '../../src/config/restart-warnings.js';

describe('restartWarnings', () => {
  const prev = defaultConfig('/home/u');

  it('says nothing when only live settings changed', () => {
    const next = { ...prev, chat: { ...prev.chat, enabled: !prev.chat.enabled } };
    assert.deepEqual(restartWarnings(next, prev), []);
  });

  it('names each setting only a restart applies', () => {
    const next = {
      ...prev,
      web: { ...prev.web, listen: '127.0.0.1:1', request_timeout: prev.web.request_timeout + 1 },
      pool: { ...prev.pool, threads: prev.pool.threads + 1 },
    };
    assert.deepEqual(restartWarnings(next, prev), [
      'web.listen changed: restart the daemon to apply it',
      'web.request_timeout changed: restart the daemon to apply it',
      'pool.threads changed: restart the daemon to apply it',
    ]);
  });

  it('tells HTTPS turned on apart from a new certificate path', () => {
    const tls = { cert: '/c.pem', key: '/k.pem' };
    const withTls = { ...prev, web: { ...prev.web, tls } };
    assert.match(restartWarnings(withTls, prev)[0]!, /web.tls was added or removed/);
    const moved = { ...prev, web: { ...prev.web, tls: { ...tls, cert: '/d.pem' } } };
    assert.deepEqual(restartWarnings(moved, withTls), []);
  });
});
