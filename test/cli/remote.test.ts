import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLeoAsync } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { makeTempHome } from '../helpers/temp-home.js';
import { dnsNameProblem } from '../../src/cli/remote-command.js';

const HOST = 'leo.example.ts.net';

describe('leo remote <host>: allows the host, prints the set-up in front of the daemon and a pairing QR for it', () => {
  let t: TestDaemon;
  let env: NodeJS.ProcessEnv;
  let config = '';

  before(async () => {
    t = await startTestDaemon();
    env = { ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home };
    config = path.join(t.home, 'leo.yaml');
    // A person's file: comments to keep, and no allowed_hosts yet.
    fs.writeFileSync(config, `# my Leo\n${fs.readFileSync(config, 'utf8')}# the end\n`);
    fs.chmodSync(config, 0o600);
  });
  after(() => t.stop());

  it('adds the host to web.allowed_hosts keeping comments and 0600, prints Tailscale Serve, Caddy, nginx and a link', async () => {
    const r = await runLeoAsync(['remote', 'Leo.Example.ts.net.', '--device', 'pixel'], env);
    assert.equal(r.status, 0, r.stderr);
    const port = t.tcp.port!;
    assert.match(r.stdout, new RegExp(`Added ${HOST} to web\\.allowed_hosts`));
    assert.ok(r.stdout.includes(`  tailscale serve --bg --https=443 http://127.0.0.1:${port}\n`), r.stdout);
    assert.ok(r.stdout.includes(`  ${HOST} {\n    reverse_proxy 127.0.0.1:${port}\n  }\n`), r.stdout);
    assert.ok(r.stdout.includes(`    server_name ${HOST};`));
    assert.ok(r.stdout.includes(`      proxy_pass http://127.0.0.1:${port};`));
    assert.ok(r.stdout.includes('      proxy_buffering off;'));
    const link = new RegExp(`^  (https://${HOST.replaceAll('.', '\\.')}/#pair=\\S+)$`, 'm').exec(r.stdout)?.[1];
    assert.ok(link, r.stdout);
    assert.match(r.stdout, /[▀▄█]/, 'a QR code in the terminal');

    const text = fs.readFileSync(config, 'utf8');
    assert.match(text, /^# my Leo\n/);
    assert.match(text, /# the end\n$/);
    assert.match(text, /allowed_hosts:\n\s+- leo\.example\.ts\.net\n/);
    assert.equal(fs.statSync(config).mode & 0o777, 0o600);

    // The daemon reloads leo.yaml: the proxy's Host and the page's Origin are let in, and the link's code pairs.
    let health = 0;
    for (let i = 0; i < 50 && health !== 200; i++) {
      await sleep(100);
      health = (await request(t.tcp, 'GET', '/health', { headers: { host: HOST } })).status;
    }
    assert.equal(health, 200);
    const code = decodeURIComponent(new URL(link).hash.slice('#pair='.length));
    const paired = await request(t.tcp, 'POST', '/api/v1/pair', {
      headers: { host: HOST, origin: `https://${HOST}` },
      body: { code },
    });
    assert.equal(paired.status, 201, paired.text);
    assert.equal(paired.json.data.device.name, 'pixel');
  });

  it('run again, it leaves the file as it is and pairs another device', async () => {
    const before = fs.readFileSync(config, 'utf8');
    const r = await runLeoAsync(['remote', HOST, '--device', 'tablet'], env);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /is already in web\.allowed_hosts/);
    assert.equal(fs.readFileSync(config, 'utf8'), before);
  });

  it('refuses a host that is not a DNS name, changing nothing', async () => {
    const before = fs.readFileSync(config, 'utf8');
    for (const bad of ['10.0.0.7', 'bad_host.example']) {
      const r = await runLeoAsync(['remote', '--', bad], env);
      assert.equal(r.status, 1, bad);
      assert.match(r.stderr, /^leo: ".*" is not a DNS name: /, bad);
      assert.equal(r.stdout, '');
    }
    assert.equal(fs.readFileSync(config, 'utf8'), before);
  });
});

describe('leo remote with no daemon running', () => {
  it('allows the host and prints the set-up from web.listen, then says the link needs the daemon', async () => {
    const t = makeTempHome('web:\n  listen: 127.0.0.1:18999\n');
    try {
      const r = await runLeoAsync(['remote', HOST], t.env);
      assert.equal(r.status, 1);
      assert.ok(r.stdout.includes('  tailscale serve --bg --https=443 http://127.0.0.1:18999\n'), r.stdout);
      assert.match(r.stderr, /the daemon is not running.*run `leo remote leo\.example\.ts\.net` again once it runs/);
      assert.match(fs.readFileSync(path.join(t.home, 'leo.yaml'), 'utf8'), /- leo\.example\.ts\.net/);
    } finally {
      t.cleanup();
    }
  });
});

describe('dnsNameProblem: which names leo remote takes', () => {
  it('takes host names, refuses IPs, empty or over-long labels and stray characters', () => {
    for (const good of [
      'leo',
      'leo.example.ts.net',
      'my-mac.tail1234.ts.net',
      'x1.example',
      `${'a'.repeat(63)}.example`,
    ])
      assert.equal(dnsNameProblem(good), null, good);
    for (const bad of [
      '',
      '10.0.0.7',
      'leo..example',
      '.leo',
      '-leo.example',
      'leo-.example',
      'bad_host.example',
      'leo.example:443',
      'https://leo.example',
      `${'a'.repeat(64)}.example`,
      `${'a.'.repeat(127)}aa`,
    ])
      assert.notEqual(dnsNameProblem(bad), null, bad);
  });
});
