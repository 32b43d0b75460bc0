import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Principal } from '../../src/wire/token-kinds.js';
import { Access, decideAccess } from '../../src/http/access.js';
import { checkHostAndOrigin, hostnameOf } from '../../src/http/host-gate.js';

const tokens: Record<string, Principal> = {
  op: { kind: 'operator' },
  ag: { kind: 'agent' },
  dev: { kind: 'device', id: 'd1', name: 'phone', fleet: false },
  own: { kind: 'device', id: 'd2', name: 'own phone', fleet: true },
  ro: { kind: 'client', id: 'c1', name: 'den', canPost: false },
  rw: { kind: 'client', id: 'c2', name: 'bot', canPost: true },
};
const identify = (t: string) => tokens[t] ?? null;
const decide = (access: Parameters<typeof decideAccess>[0]['access'], authorization?: string, viaSocket = false) =>
  decideAccess({ viaSocket, access, authorization, identify });

describe('decideAccess', () => {
  it('admits everyone on the socket, token or not', () => {
    assert.deepEqual(decide(Access.operator, undefined, true), { allowed: true, principal: { kind: 'socket' } });
    assert.equal(decide(Access.socketOnly, undefined, true).allowed, true);
  });

  it('hides socket-only routes on TCP as 404, even from the operator', () => {
    const d = decide(Access.socketOnly, 'Bearer op');
    assert.equal(d.allowed, false);
    assert.equal(!d.allowed && d.status, 404);
  });

  it('401 for a missing, malformed or unknown token', () => {
    for (const h of [undefined, 'Basic abc', 'Bearer', 'Bearer nope']) {
      const d = decide(Access.operator, h);
      assert.equal(!d.allowed && d.status, 401, String(h));
    }
    const missing = decide(Access.operator);
    assert.match(!missing.allowed ? missing.error : '', /missing bearer token/);
  });

  it('403 for a token of a kind the route refuses, naming the kind', () => {
    const d = decide(Access.operator, 'Bearer ag');
    assert.equal(!d.allowed && d.status, 403);
    assert.match(!d.allowed ? d.error : '', /agent tokens/);
    assert.equal(decide(Access.operatorOrDevice, 'Bearer ro').allowed, false);
  });

  it('admits the declared kinds and carries the principal', () => {
    assert.deepEqual(decide(Access.operator, 'Bearer op'), { allowed: true, principal: { kind: 'operator' } });
    assert.deepEqual(decide(Access.operatorOrDevice, 'bearer dev'), { allowed: true, principal: tokens.dev });
    assert.deepEqual(decide(Access.readers, 'Bearer ro'), { allowed: true, principal: tokens.ro });
  });

  it('API clients need can_post where the route says so', () => {
    const posting = { tokens: ['operator', 'client'], clientMustPost: true } as const;
    const d = decide(posting, 'Bearer ro');
    assert.equal(!d.allowed && d.status, 403);
    assert.match(!d.allowed ? d.error : '', /can_post/);
    assert.equal(decide(posting, 'Bearer rw').allowed, true);
  });

  it('fleet writes admit the operator and devices granted the scope; the refusal names the scope', () => {
    assert.equal(decide(Access.fleet, 'Bearer op').allowed, true);
    assert.deepEqual(decide(Access.fleet, 'Bearer own'), { allowed: true, principal: tokens.own });
    const d = decide(Access.fleet, 'Bearer dev');
    assert.equal(!d.allowed && d.status, 403);
    assert.equal(!d.allowed && d.code, 'forbidden');
    assert.match(!d.allowed ? d.error : '', /fleet scope/);
    assert.deepEqual(!d.allowed && d.details, { scope: 'fleet' });
    assert.equal(decide(Access.fleet, 'Bearer rw').allowed, false);
    assert.equal(decide(Access.fleet, undefined, true).allowed, true);
  });

  it('public routes need no token on TCP', () => {
    assert.deepEqual(decide(Access.public), { allowed: true, principal: { kind: 'anonymous' } });
  });
});

describe('host and origin gate', () => {
  it('parses Host headers with and without ports', () => {
    assert.equal(hostnameOf('127.0.0.1:8370'), '127.0.0.1');
    assert.equal(hostnameOf('LOCALHOST'), 'localhost');
    assert.equal(hostnameOf('[::1]:8370'), '[::1]');
    assert.equal(hostnameOf('evil.com:80:90'), null);
    assert.equal(hostnameOf(''), null);
  });

  it('passes loopback names and configured hosts only', () => {
    for (const h of ['localhost:8370', '127.0.0.1', '[::1]:1', 'mac.tailnet.ts.net'])
      assert.equal(checkHostAndOrigin(h, undefined, ['mac.tailnet.ts.net']), null, h);
    for (const h of [undefined, 'evil.com', '127.0.0.1.nip.io', 'localhost.evil.com'])
      assert.match(checkHostAndOrigin(h, undefined, []) ?? '', /not allowed/, String(h));
  });

  it('checks Origin when a browser sends one', () => {
    assert.equal(checkHostAndOrigin('localhost', 'http://localhost:3000', []), null);
    for (const o of ['https://evil.com', 'null', 'file:///x', 'http://127.0.0.1.evil.com'])
      assert.match(checkHostAndOrigin('localhost', o, []) ?? '', /Origin/, o);
  });
});
