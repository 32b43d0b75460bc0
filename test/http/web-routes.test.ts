// Leo Web's files as the daemon serves them (issue 16): caching per kind of file, the security headers, the
// Host/Origin gate, and nothing outside dist/web reachable.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CONTENT_SECURITY_POLICY, WEB_ROOT } from '../../src/http/web-routes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';

describe('Leo Web static files', () => {
  let t: TestDaemon;
  before(async () => {
    assert.ok(fs.existsSync(path.join(WEB_ROOT, 'index.html')), 'Leo Web is not built: run `npm run build`');
    t = await startTestDaemon();
  });
  after(() => t.stop());

  it('index.html is never cached and carries the CSP and the other security headers', async () => {
    const r = await request(t.tcp, 'GET', '/');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/html/);
    assert.equal(r.headers['cache-control'], 'no-cache');
    assert.equal(r.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    assert.match(CONTENT_SECURITY_POLICY, /script-src 'self';/);
    assert.match(CONTENT_SECURITY_POLICY, /frame-ancestors 'none'/);
    assert.match(CONTENT_SECURITY_POLICY, /media-src 'self' blob:;/, 'voice notes play from blob URLs');
    assert.equal(r.headers['x-content-type-options'], 'nosniff');
    assert.equal(r.headers['referrer-policy'], 'no-referrer');
    assert.doesNotMatch(r.text, /<script(?![^>]*\bsrc=)[^>]*>/, 'no inline script in the document');
  });

  it('hashed assets are cached forever; the manifest is revalidated', async () => {
    const index = (await request(t.tcp, 'GET', '/')).text;
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(index)?.[1];
    assert.ok(script, index);
    const asset = await request(t.tcp, 'GET', script);
    assert.equal(asset.status, 200);
    assert.equal(asset.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(asset.headers['content-type']), /javascript/);
    const manifest = await request(t.tcp, 'GET', '/manifest.webmanifest');
    assert.equal(manifest.status, 200);
    assert.equal(manifest.headers['cache-control'], 'no-cache');
    assert.equal(JSON.parse(manifest.text).start_url, '/');
  });

  it('sends the build’s precompressed copy to a client that accepts it, the same bytes once decoded', async () => {
    const raw = (p: string, encoding?: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        const req = http.get(
          { host: '127.0.0.1', port: t.daemon.port, path: p, headers: encoding ? { 'accept-encoding': encoding } : {} },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          },
        );
        req.on('error', reject);
      });
    const script = /src="(\/assets\/[^"]+\.js)"/.exec((await request(t.tcp, 'GET', '/')).text)![1]!;
    for (const p of ['/', script]) {
      const plain = await raw(p);
      assert.equal(plain.headers['content-encoding'], undefined);
      const gz = await raw(p, 'gzip');
      assert.equal(gz.headers['content-encoding'], 'gzip', p);
      assert.ok(gz.body.length < plain.body.length, `${p}: ${gz.body.length} < ${plain.body.length}`);
      assert.deepEqual(gunzipSync(gz.body), plain.body);
      const br = await raw(p, 'gzip, deflate, br');
      assert.equal(br.headers['content-encoding'], 'br', p);
      assert.deepEqual(brotliDecompressSync(br.body), plain.body);
      assert.match(String(br.headers.vary), /accept-encoding/i);
      assert.equal(br.headers['content-security-policy'], CONTENT_SECURITY_POLICY);
    }
  });

  it('a missing asset is a 404 that is not cached, and no path leaves dist/web', async () => {
    const missing = await request(t.tcp, 'GET', '/assets/nope.js');
    assert.equal(missing.status, 404);
    assert.equal(missing.headers['cache-control'], 'no-store');
    for (const p of ['/assets/..%2F..%2Fpackage.json', '/assets/%2e%2e', '/assets/.hidden', '/../package.json'])
      assert.equal((await request(t.tcp, 'GET', p)).status, 404, p);
  });

  it('the files pass the Host/Origin gate like every route', async () => {
    const r = await request(t.tcp, 'GET', '/', { headers: { host: 'evil.example' } });
    assert.equal(r.status, 403);
    const o = await request(t.tcp, 'GET', '/', { headers: { origin: 'http://evil.example' } });
    assert.equal(o.status, 403);
  });
});
