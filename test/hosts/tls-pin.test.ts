// A hub following a host on the owner's LAN through the host's own TLS listener (issue 31), with a self-signed
// certificate for another name than the one the hub dials: the join link pins the certificate, and the pin alone
// decides. Two real daemons on loopback, `leo host invite|add|list|remove|revoke` through the real CLI.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import type { ManualClock } from '../../src/core/clock.js';
import { pinOfDer, pinOfPem, shortPin } from '../../src/hosts/cert-pin.js';
import { StateSnapshot } from '../../src/wire/fleet.js';
import { HostEntry } from '../../src/wire/host.js';
import { runLeoAsync } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { tempDir } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';

/** The owner's one-liner (docs/HOSTS.md): a self-signed certificate for `name` only, in `<dir>/<label>-*.pem`. */
function selfSigned(dir: string, label: string, name: string): { cert: string; key: string } {
  const cert = path.join(dir, `${label}-cert.pem`);
  const key = path.join(dir, `${label}-key.pem`);
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2'];
  const out = ['-keyout', key, '-out', cert, '-subj', `/CN=${name}`, '-addext', `subjectAltName=DNS:${name}`];
  execFileSync('openssl', ['req', '-x509', ...ec, ...out], { stdio: 'pipe' });
  return { cert, key };
}

/** The certificate a fresh TLS connection to the port is served now, as a pin. */
function servedPin(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      resolve(pinOfDer(s.getPeerCertificate().raw));
      s.destroy();
    });
    s.on('error', reject);
  });
}

describe('a hub follows a host over its own TLS listener, pinning its certificate', () => {
  const dir = tempDir('leo-tls-pin-');
  // The daemon serves fixed paths; a renewal writes new files over them.
  const cert = path.join(dir, 'served-cert.pem');
  const key = path.join(dir, 'served-key.pem');
  let host: TestDaemon;
  let hub: TestDaemon;
  let url = '';
  let pin = '';

  const envOf = (t: TestDaemon) => ({ ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home });
  const leo = (t: TestDaemon, ...args: string[]) => runLeoAsync(args, envOf(t));
  const tokenFile = (name: string) => path.join(hub.home, 'state', 'hosts', `${name}.token`);
  const hubHosts = () =>
    (parse(fs.readFileSync(path.join(hub.home, 'leo.yaml'), 'utf8'))?.client?.hosts ?? {}) as Record<string, unknown>;
  /** `leo host invite hub` on the host: the link it prints. */
  const invite = async (...args: string[]) => {
    const r = await leo(host, 'host', 'invite', 'hub', ...args);
    assert.equal(r.status, 0, r.stderr);
    const link = /'(https?:\/\/\S+#join=\S+)'/.exec(r.stdout)?.[1];
    assert.ok(link, r.stdout);
    return { link, out: r.stdout };
  };
  /** The hub's hosts once `ok` holds: its follower moves on the hub's (manual) clock, a second nearer at each look. */
  const hostsWhen = async (what: string, ok: (box: HostEntry | undefined) => boolean) => {
    let box: HostEntry | undefined;
    await until(
      what,
      async () => {
        (hub.clock as ManualClock).advance(1_000);
        box = (await hub.get('/api/v1/hosts', HostEntry.array())).find((h) => h.name === 'box');
        return ok(box);
      },
      20_000,
    );
    return box!;
  };

  before(async () => {
    const first = selfSigned(dir, 'first', 'box.lan');
    fs.copyFileSync(first.cert, cert);
    fs.copyFileSync(first.key, key);
    pin = pinOfPem(fs.readFileSync(cert));
    host = await startTestDaemon({
      config: 'templates:\n  cat: { harness: shell, command: "exec cat" }\n',
      web: `  tls:\n    cert: ${cert}\n    key: ${key}\n`,
    });
    hub = await startTestDaemon();
    url = `https://127.0.0.1:${host.daemon.port}`;
    // Over the host's socket: its TCP listener speaks TLS only.
    const spawned = await request(host.socket, 'POST', '/api/v1/agents/spawn', {
      body: { template: 'cat', name: 'den' },
    });
    assert.equal(spawned.status, 201, spawned.text);
  });
  after(async () => {
    await Promise.all([host.stop(), hub.stop()]);
  });

  it('an invite to the host’s own TLS listener pins the certificate it serves; one to a proxy does not', async () => {
    const own = await invite('--url', `${url}/`);
    assert.ok(own.link.startsWith(`${url}/#join=`), own.link);
    assert.ok(own.link.endsWith(`&pin=${pin}`), own.link);
    assert.match(own.out, /pins the certificate this daemon serves/);
    assert.ok((await invite()).link.endsWith(`&pin=${pin}`), 'the listen address by default');
    const proxied = await invite('--url', 'https://box.example.ts.net');
    assert.doesNotMatch(proxied.link, /pin=/);
  });

  it('a link whose pin is wrong is refused before the code reaches the host: no token, nothing written', async () => {
    const { link } = await invite('--url', url);
    const wrong = link.replace(/pin=sha256:[0-9a-f]+$/, `pin=sha256:${'0'.repeat(64)}`);
    const refused = await leo(hub, 'host', 'add', 'box', wrong);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /certificate changed/);
    assert.ok(refused.stderr.includes(shortPin(pin)), refused.stderr);
    assert.ok(refused.stderr.includes(`sha256:${'0'.repeat(12)}…`), refused.stderr);
    assert.equal(fs.existsSync(tokenFile('box')), false);
    assert.deepEqual(hubHosts(), {});
    assert.equal(host.daemon.tokens.list('peer').length, 0);

    // The code was never sent, so the right link still redeems it: add keeps the pin in leo.yaml.
    const added = await leo(hub, 'host', 'add', 'box', link);
    assert.equal(added.status, 0, added.stderr);
    assert.deepEqual(hubHosts(), { box: { url, pin } });
    assert.equal(hub.daemon.config().client.hosts.box?.pin, pin, 'reloaded');
  });

  it('the hub follows the host through the pinned connection: online, its agents in the hub’s state', async () => {
    const box = await hostsWhen('box online', (h) => h?.status === 'online');
    assert.equal(box.url, url);
    await until(
      'den@box on the hub',
      async () => (await hub.get('/api/v1/state', StateSnapshot)).agents.some((a) => a.name === 'den@box'),
      10_000,
    );
  });

  it('a renewed certificate breaks the pin: offline, saying so; pairing again with a new link follows it', async () => {
    const renewed = selfSigned(dir, 'renewed', 'box.lan');
    const renewedPin = pinOfPem(fs.readFileSync(renewed.cert));
    fs.copyFileSync(renewed.key, key);
    fs.copyFileSync(renewed.cert, cert);
    // The host re-reads its files (web.tls), so new connections get the new certificate.
    await until(
      'the renewed certificate served',
      async () => (await servedPin(host.daemon.port)) === renewedPin,
      20_000,
    );
    // The hub's live stream began under the old certificate; its next connection, after a restart, meets the new one.
    await hub.restart();
    const box = await hostsWhen('box offline', (h) => h?.status === 'offline' && !!h.error);
    assert.match(box.error!, /certificate changed/);
    assert.ok(box.error!.includes(shortPin(renewedPin)) && box.error!.includes(shortPin(pin)), box.error);
    const listed = await leo(hub, 'host', 'list');
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /^box {2}offline .*certificate changed/m);

    // The way out the error names: a new invite on the host, then remove and add on the hub.
    assert.equal((await leo(host, 'host', 'revoke', 'hub')).status, 0);
    const removed = await leo(hub, 'host', 'remove', 'box');
    assert.equal(removed.status, 0, removed.stderr);
    const { link } = await invite('--url', url);
    assert.ok(link.endsWith(`&pin=${renewedPin}`), link);
    assert.equal((await leo(hub, 'host', 'add', 'box', link)).status, 0);
    assert.deepEqual(hubHosts(), { box: { url, pin: renewedPin } });
    await hostsWhen('box online again', (h) => h?.status === 'online');
  });
});
