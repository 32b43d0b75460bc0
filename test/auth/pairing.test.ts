// Pairing codes (issue 16): a one-time, ten-minute code, stored hashed, that an unauthenticated browser trades for a
// paired-device token, through the real daemon's routes.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAIRING_CODE_TTL_MS } from '../../src/auth/pairing-codes.js';
import { ManualClock } from '../../src/core/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';

describe('pairing codes', () => {
  let t: TestDaemon;
  const clock = new ManualClock(Date.now());
  const issue = (name: string) => t.op('POST', '/api/v1/devices/pairing-codes', { name });
  const pair = (code: string) => request(t.tcp, 'POST', '/api/v1/pair', { body: { code } });

  before(async () => {
    t = await startTestDaemon({ clock });
  });
  after(() => t.stop());

  it('a code is issued in a link to the app, pairs once, and the token it gives is a device token', async () => {
    const issued = await issue('phone');
    assert.equal(issued.status, 201, issued.text);
    const { code, url, name } = issued.json.data;
    assert.equal(name, 'phone');
    assert.equal(url, `${t.daemon.appUrl}#pair=${code}`);

    const paired = await pair(code);
    assert.equal(paired.status, 201, paired.text);
    assert.equal(paired.json.data.device.name, 'phone');
    const token = paired.json.data.token as string;
    assert.equal((await request(t.tcp, 'GET', '/api/v1/chat/threads', { token })).status, 200);
    // Device tokens are not operator tokens.
    assert.equal((await request(t.tcp, 'GET', '/api/v1/devices', { token })).status, 403);

    const again = await pair(code);
    assert.equal(again.status, 401);
    assert.equal(again.json.code, 'bad_pairing_code');
  });

  it('only the code hash is stored', async () => {
    const { code } = (await issue('tablet')).json.data;
    const rows = t.daemon.db.prepare('SELECT * FROM pairing_codes').all();
    assert.equal(rows.length, 1);
    assert.equal(JSON.stringify(rows).includes(code), false);
  });

  it('a code expires after ten minutes', async () => {
    const { code } = (await issue('laptop')).json.data;
    clock.advance(PAIRING_CODE_TTL_MS);
    const late = await pair(code);
    assert.equal(late.status, 401, late.text);
    assert.equal((await t.op('GET', '/api/v1/devices')).json.data.length, 1);
  });

  it('an unknown code, a malformed body and a taken name are refused; issuing needs the operator', async () => {
    assert.equal((await pair('not-a-code')).status, 401);
    assert.equal((await request(t.tcp, 'POST', '/api/v1/pair', { body: {} })).status, 400);
    assert.equal((await issue('phone')).status, 409);
    const asDevice = await request(t.tcp, 'POST', '/api/v1/devices/pairing-codes', { body: { name: 'x' } });
    assert.equal(asDevice.status, 401);
  });
});
