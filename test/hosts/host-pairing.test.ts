// Pairing a host with a hub (issue 31, Done-when item 1), as an owner meets it: two real daemons, each its own
// LEO_HOME, on loopback ports; `leo host invite` on the host and `leo host add|list|remove` on the hub through the
// real CLI. The netns set-up comes with the hub's event follower.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { PAIRING_CODE_TTL_MS } from '../../src/auth/pairing-codes.js';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { LEO_VERSION } from '../../src/core/version.js';
import { HostEntry, HostInfo, PROTOCOL } from '../../src/wire/host.js';
import { runLeoAsync } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { advanceHubUntil } from '../helpers/hub-clock.js';
import { SseClient } from '../helpers/sse-client.js';
import { tempDir } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';

const HUB_CONFIG =
  '# the owner’s hub: this comment must survive `leo host add`\ndefaults:\n  harness: shell # and this one\n';

describe('pairing a host with a hub', () => {
  const logs = tempDir('leo-host-logs-');
  const hostLog = path.join(logs, 'host.log');
  const hubLog = path.join(logs, 'hub.log');
  /** Every secret the test saw: none may be in either daemon's log. */
  const secrets: string[] = [];
  const hostClock = new ManualClock(Date.now());
  let host: TestDaemon;
  let hub: TestDaemon;
  let stub: http.Server | undefined;

  const fileLogger = (file: string) =>
    createLogger('debug', { write: (line: string) => fs.appendFileSync(file, line) });
  const envOf = (t: TestDaemon) => ({ ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home });
  const leo = (t: TestDaemon, ...args: string[]) => runLeoAsync(args, envOf(t));
  const tokenFile = (name: string) => path.join(hub.home, 'state', 'hosts', `${name}.token`);
  const hubHosts = () =>
    (parse(fs.readFileSync(path.join(hub.home, 'leo.yaml'), 'utf8'))?.client?.hosts ?? {}) as object;
  /** `leo host invite` on the host: the join link it prints, and the code in it. */
  const invite = async (hubName: string, ...args: string[]) => {
    const r = await leo(host, 'host', 'invite', hubName, ...args);
    assert.equal(r.status, 0, r.stderr);
    const link = /'(https?:\/\/\S+#join=[\w-]+)'/.exec(r.stdout)?.[1];
    assert.ok(link, r.stdout);
    const code = link.split('#join=')[1]!;
    secrets.push(code);
    return { link, code, out: r.stdout };
  };
  const hostList = async () => {
    const r = await leo(hub, 'host', 'list', '--json');
    assert.equal(r.status, 0, r.stderr);
    return HostEntry.array().parse(JSON.parse(r.stdout));
  };
  /**
   * The list once `ok` holds for it: the hub's follower learns of a change at its next read or attempt, which its
   * (manual) clock brings a second nearer at each look.
   */
  const hostListWhen = (what: string, ok: (hosts: HostEntry[]) => boolean) =>
    advanceHubUntil(
      hub,
      what,
      async () => {
        const hosts = await hostList();
        return ok(hosts) && hosts;
      },
      { stepMs: 1_000, timeoutMs: 15_000 },
    );

  before(async () => {
    host = await startTestDaemon({
      clock: hostClock,
      config: 'templates:\n  cat: { harness: shell, command: "exec cat" }\n',
      logger: fileLogger(hostLog),
    });
    hub = await startTestDaemon({ config: HUB_CONFIG, logger: fileLogger(hubLog) });
    assert.equal((await host.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
  });
  after(async () => {
    stub?.close();
    await Promise.all([host.stop(), hub.stop()]);
  });

  it('every daemon answers GET /api/v1/host: its installation id, name, version, protocol and features', async () => {
    const info = await hub.get('/api/v1/host', HostInfo);
    assert.match(info.host_id, /^[0-9A-HJKMNP-TV-Z]{26}$/);
    assert.equal(info.version, LEO_VERSION);
    assert.deepEqual(info.protocol, PROTOCOL);
    assert.ok(info.name.length > 0);
    assert.ok(info.features.length > 0, 'the features the SSE hello advertises');
    const events = await SseClient.open(hub.tcp, '/api/v1/events', hub.daemon.operatorToken);
    const hello = (await events.waitFor(1))[0]!;
    events.close();
    assert.deepEqual(info.features, hello.data.features);
    await hub.restart();
    assert.equal((await hub.get('/api/v1/host', HostInfo)).host_id, info.host_id, 'kept across a restart');
    assert.notEqual((await host.get('/api/v1/host', HostInfo)).host_id, info.host_id, 'one per installation');
  });

  it('`leo host invite` + `leo host add` pair them: leo.yaml keeps its comments, the token file is 0600', async () => {
    const { link, out } = await invite('hub-one');
    assert.ok(link.startsWith(`http://127.0.0.1:${host.daemon.port}/#join=`), 'the listen address by default');
    assert.match(out, /one use, until/);

    const added = await leo(hub, 'host', 'add', 'box', link);
    assert.equal(added.status, 0, added.stderr);
    assert.match(added.stdout, new RegExp(`added host "box" at http://127\\.0\\.0\\.1:${host.daemon.port}: leo `));

    const yaml = fs.readFileSync(path.join(hub.home, 'leo.yaml'), 'utf8');
    assert.ok(yaml.includes('# the owner’s hub: this comment must survive `leo host add`'), yaml);
    assert.ok(yaml.includes('# and this one'), yaml);
    assert.deepEqual(hubHosts(), { box: { url: `http://127.0.0.1:${host.daemon.port}` } });
    assert.equal(hub.daemon.config().client.hosts.box?.url, `http://127.0.0.1:${host.daemon.port}`, 'reloaded');

    assert.equal(fs.statSync(tokenFile('box')).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(tokenFile('box'))).mode & 0o777, 0o700);
    const token = fs.readFileSync(tokenFile('box'), 'utf8').trim();
    secrets.push(token);
    assert.match(token, /^leo_peer_/);

    // The host lists the hub among its peers, under the name the invite gave it.
    const peers = await leo(host, 'host', 'peers', '--json');
    assert.equal(peers.status, 0, peers.stderr);
    assert.deepEqual(
      (JSON.parse(peers.stdout) as { name: string; kind: string }[]).map((p) => [p.kind, p.name]),
      [['peer', 'hub-one']],
    );
  });

  it('the peer token reads the host’s state and its chat events, and no API answer shows it', async () => {
    const token = fs.readFileSync(tokenFile('box'), 'utf8').trim();
    const state = await request(host.tcp, 'GET', '/api/v1/state', { token });
    assert.equal(state.status, 200, state.text);
    assert.deepEqual(
      (state.json.data.agents as { name: string }[]).map((a) => a.name),
      ['den'],
    );
    const stream = await SseClient.open(host.tcp, '/api/v1/events', token);
    try {
      await stream.waitFor(1);
      const sent = await host.op('POST', '/api/v1/chat/den/messages', { text: 'hello from the owner' });
      assert.equal(sent.status, 201, sent.text);
      await until(
        'the chat event on the peer’s stream',
        () => stream.events.some((e) => e.event === 'chat.message' && e.data.message.id === sent.json.data.id),
        10_000,
      );
    } finally {
      stream.close();
    }
    for (const [t, p] of [
      [hub, '/api/v1/hosts'],
      [host, '/api/v1/peers'],
      [host, '/api/v1/state'],
    ] as const) {
      const r = await t.op('GET', p);
      assert.equal(r.status, 200, r.text);
      assert.ok(!r.text.includes(token), `${p} shows no peer token`);
    }
  });

  it('a peer token is refused on token, device, pairing, push, config and daemon routes', async () => {
    const token = fs.readFileSync(tokenFile('box'), 'utf8').trim();
    const refused: [string, string, unknown?][] = [
      ['POST', '/api/v1/devices', { name: 'sneaky' }],
      ['GET', '/api/v1/devices'],
      ['GET', '/api/v1/clients'],
      ['POST', '/api/v1/clients', { name: 'sneaky' }],
      ['GET', '/api/v1/peers'],
      ['POST', '/api/v1/devices/pairing-codes', { name: 'sneaky' }],
      ['POST', '/api/v1/host/invites', { hub: 'another' }],
      ['GET', '/api/v1/push/subscriptions'],
      ['GET', '/api/v1/push/vapid-public-key'],
      ['PUT', '/api/v1/appearance/rules', { rules: [] }],
      ['GET', '/api/v1/daemon'],
      ['GET', '/metrics'],
      ['GET', '/api/v1/hosts'],
    ];
    for (const [method, p, body] of refused) {
      const r = await request(host.tcp, method, p, { token, body });
      assert.equal(r.status, 403, `${method} ${p}: ${r.text}`);
    }
  });

  it('a join link works once: used, expired or forged, it is refused with no token issued', async () => {
    const peersNow = () => host.daemon.tokens.list('peer').length;
    const before = peersNow();
    const used = await invite('hub-two');
    assert.equal((await leo(hub, 'host', 'add', 'twice', used.link)).status, 0);
    secrets.push(fs.readFileSync(tokenFile('twice'), 'utf8').trim());
    const again = await leo(hub, 'host', 'add', 'thrice', used.link);
    assert.equal(again.status, 1);
    assert.match(again.stderr, /refused the join link: it is unknown, already used or expired/);
    const direct = await request(host.tcp, 'POST', '/api/v1/host/join', { body: { code: used.code, hub: 'x' } });
    assert.equal(direct.status, 401);
    assert.equal(direct.json.code, 'bad_join_code');

    const late = await invite('hub-three');
    hostClock.advance(PAIRING_CODE_TTL_MS);
    const expired = await request(host.tcp, 'POST', '/api/v1/host/join', { body: { code: late.code, hub: 'x' } });
    assert.equal(expired.status, 401, expired.text);
    assert.equal(expired.json.code, 'bad_join_code');

    const forged = randomBytes(16).toString('base64url');
    secrets.push(forged);
    const viaHub = await leo(hub, 'host', 'add', 'forged', `http://127.0.0.1:${host.daemon.port}/#join=${forged}`);
    assert.equal(viaHub.status, 1);
    assert.match(viaHub.stderr, /refused the join link/);
    // A device's pairing code is no join code either.
    const pairing = await host.op('POST', '/api/v1/devices/pairing-codes', { name: 'phone' });
    const asJoin = await request(host.tcp, 'POST', '/api/v1/host/join', {
      body: { code: pairing.json.data.code, hub: 'x' },
    });
    assert.equal(asJoin.status, 401);

    assert.equal(peersNow(), before + 1, 'only the first use issued a token');
    for (const name of ['thrice', 'forged']) {
      assert.equal(fs.existsSync(tokenFile(name)), false, name);
      assert.equal(name in hubHosts(), false, name);
    }
    const malformed = await leo(hub, 'host', 'add', 'bad', 'box.example.ts.net');
    assert.equal(malformed.status, 1);
    assert.match(malformed.stderr, /not a URL: expected a join link/);
    const taken = await leo(hub, 'host', 'add', 'box', (await invite('hub-four')).link);
    assert.equal(taken.status, 1);
    assert.match(taken.stderr, /a host named "box" is already added/);

    // Revoked on the host (`leo host revoke`): the hub finds its token refused, and still removes the host.
    const revoked = await leo(host, 'host', 'revoke', 'hub-two');
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.match(revoked.stdout, /revoked peer "hub-two"/);
    const refused = (h: HostEntry | undefined) => h?.status === 'offline' && /HTTP 401/.test(h.error ?? '');
    const hosts = await hostListWhen('twice refused', (list) => refused(list.find((h) => h.name === 'twice')));
    const twice = hosts.find((h) => h.name === 'twice');
    assert.equal(twice?.status, 'offline');
    assert.match(twice!.error ?? '', /HTTP 401: invalid or revoked token/);
    const removed = await leo(hub, 'host', 'remove', 'twice');
    assert.equal(removed.status, 0, removed.stderr);
    assert.match(removed.stdout, /removed host "twice" here; the host did not revoke the token: .*HTTP 401/);
  });

  it('failed redemptions are limited per daemon: 429 too_many_attempts with Retry-After, pairing included', async () => {
    hostClock.advance(60_000);
    let r;
    for (let i = 0; i < 20; i++) {
      r = await request(host.tcp, 'POST', '/api/v1/host/join', {
        body: { code: `guess${i}`.padEnd(22, 'x'), hub: 'x' },
      });
      if (r.status === 429) break;
      assert.equal(r.status, 401);
    }
    assert.equal(r!.status, 429, r!.text);
    assert.equal(r!.json.code, 'too_many_attempts');
    assert.ok(Number(r!.headers['retry-after']) >= 1, String(r!.headers['retry-after']));
    const pair = await request(host.tcp, 'POST', '/api/v1/pair', { body: { code: 'guess' } });
    assert.equal(pair.status, 429, 'device pairing shares the limit');
    hostClock.advance(60_000);
    const later = await request(host.tcp, 'POST', '/api/v1/pair', { body: { code: 'guess' } });
    assert.equal(later.status, 401, 'a minute later the daemon listens again');
  });

  it('a host of another protocol major is refused, naming both, and its fresh token revoked there', async () => {
    const seen: string[] = [];
    const future = { host_id: '01JFUTUREFUTUREFUTUREFUTUR', name: 'future', version: '9.0.0', features: [] };
    stub = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.setHeader('content-type', 'application/json');
      const host = { ...future, protocol: { major: 2, minor: 3 } };
      if (req.method === 'POST' && req.url === '/api/v1/host/join') {
        res.statusCode = 201;
        return res.end(JSON.stringify({ ok: true, data: { token: 'leo_peer_fromthefuture', host } }));
      }
      if (req.method === 'GET' && req.url === '/api/v1/host') return res.end(JSON.stringify({ ok: true, data: host }));
      res.end(JSON.stringify({ ok: true, data: { revoked: true } }));
    });
    await new Promise<void>((resolve) => stub!.listen(0, '127.0.0.1', resolve));
    const port = (stub.address() as AddressInfo).port;
    const r = await leo(hub, 'host', 'add', 'future', `http://127.0.0.1:${port}/#join=${'f'.repeat(22)}`);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /speaks protocol 2\.3 \(leo 9\.0\.0\) and this hub speaks 1\.0/);
    assert.deepEqual(seen, [
      'POST /api/v1/host/join ',
      'GET /api/v1/host Bearer leo_peer_fromthefuture',
      'DELETE /api/v1/host/peer Bearer leo_peer_fromthefuture',
    ]);
    assert.equal(fs.existsSync(tokenFile('future')), false);
    assert.equal('future' in hubHosts(), false);
  });

  it('`leo host list` shows the host online with version and round trip, then offline once it stops', async () => {
    const [box] = await hostList();
    assert.equal(box?.name, 'box');
    assert.equal(box.status, 'online');
    assert.equal(box.version, LEO_VERSION);
    assert.equal(typeof box.rtt_ms, 'number');
    assert.ok(box.last_seen);
    const text = await leo(hub, 'host', 'list');
    assert.match(
      text.stdout,
      new RegExp(`^box  online  http://127\\.0\\.0\\.1:\\d+  leo ${LEO_VERSION}  \\d+ ms`, 'm'),
    );
    assert.ok(!text.stdout.includes('leo_peer_') && !JSON.stringify(box).includes('leo_peer_'), 'no token listed');
  });

  it('`leo host remove` revokes the token on the host and forgets the host here', async () => {
    const token = fs.readFileSync(tokenFile('box'), 'utf8').trim();
    const r = await leo(hub, 'host', 'remove', 'box');
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /removed host "box"; it revoked this hub's token/);
    assert.equal((await request(host.tcp, 'GET', '/api/v1/state', { token })).status, 401);
    assert.equal(fs.existsSync(tokenFile('box')), false);
    assert.deepEqual(hubHosts(), {});
    assert.deepEqual(await hostList(), []);
  });

  it('a host that stopped is listed offline with when it was last seen, and is removed all the same', async () => {
    assert.equal((await leo(hub, 'host', 'add', 'box', (await invite('hub-five')).link)).status, 0);
    secrets.push(fs.readFileSync(tokenFile('box'), 'utf8').trim());
    const [online] = await hostList();
    assert.equal(online?.status, 'online');
    await host.daemon.close();
    const [offline] = await hostListWhen('box refused', ([h]) => /ECONNREFUSED/.test(h?.error ?? ''));
    assert.equal(offline?.status, 'offline');
    assert.ok(offline.last_seen! >= online.last_seen!, 'when the hub last heard from it, kept');
    assert.equal(offline.version, LEO_VERSION, 'what it last said it runs, kept');
    assert.match(offline.error ?? '', /did not answer: ECONNREFUSED/);
    const text = await leo(hub, 'host', 'list');
    assert.match(text.stdout, /^box {2}offline {2}http:\/\/127\.0\.0\.1:\d+ {2}last seen \S+ {2}\(/m);

    const r = await leo(hub, 'host', 'remove', 'box');
    assert.equal(r.status, 0, r.stderr);
    assert.match(
      r.stdout,
      /removed host "box" here; the host did not revoke the token: .*did not answer: ECONNREFUSED/,
    );
    assert.equal(fs.existsSync(tokenFile('box')), false);
    assert.deepEqual(hubHosts(), {});
  });

  it('no join code and no peer token is in either daemon’s log', () => {
    const text = fs.readFileSync(hostLog, 'utf8') + fs.readFileSync(hubLog, 'utf8');
    assert.ok(text.includes('a hub joined this host') && text.includes('host added'), 'the logs were written');
    assert.ok(secrets.length >= 8);
    for (const s of secrets) assert.ok(!text.includes(s), `a secret in the logs: ${s.slice(0, 12)}…`);
  });
});
