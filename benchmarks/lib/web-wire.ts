import http from 'node:http';
import type { TestDaemon } from '../../test/helpers/daemon.js';
import { request } from '../../test/helpers/http.js';

/** The bytes one GET sends with this Accept-Encoding (the body as it crosses the wire). */
export function wireBytes(port: number, path: string, encoding: string): Promise<{ bytes: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: '127.0.0.1', port, path, headers: { 'accept-encoding': encoding } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        resolve({ bytes: body.length, body: res.headers['content-encoding'] ? '' : body.toString('utf8') });
      });
    });
    req.on('error', reject);
  });
}

export async function pairingLink(d: TestDaemon, name: string): Promise<string> {
  const r = await request(d.tcp, 'POST', '/api/v1/devices/pairing-codes', {
    token: d.daemon.operatorToken,
    body: { name },
  });
  if (r.status !== 201) throw new Error(`pairing code: ${r.status} ${r.text}`);
  return r.json.data.url as string;
}
