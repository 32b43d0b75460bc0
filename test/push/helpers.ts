import { createECDH, createHmac, createDecipheriv, createPublicKey, randomBytes, verify } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { Message } from '../../src/wire/message.js';
import type { PushLogger } from '../../src/push/dispatcher.js';

export function message(over: Partial<Message> = {}): Message {
  return {
    id: '01JABCDEFGHJKMNPQRSTVWXYZ0',
    agent: 'den',
    direction: 'out',
    kind: 'text',
    text: 'Build is green.',
    state: '',
    attachments: [],
    ts: '2026-10-15T18:00:00Z',
    ...over,
  };
}

export interface LogLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  obj: object;
  msg: string;
}

export function memoryLogger(): PushLogger & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  const at = (level: LogLine['level']) => (obj: object, msg: string) => void lines.push({ level, obj, msg });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export function tempDir(): { dir: string; cleanup(): void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-push-test-'));
  return { dir, cleanup: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

export interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

export type Responder = (req: Received, res: http.ServerResponse) => void;

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  respond: Responder;
  close(): Promise<void>;
}

/** A loopback HTTP(S) server that records every request and answers with whatever `respond` is set to. */
export async function startReceiver(tls?: { key: string; cert: string }): Promise<Receiver> {
  const requests: Received[] = [];
  const receiver = {
    requests,
    respond: ((_req, res) => res.writeHead(201).end()) as Responder,
  } as Receiver;
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      requests.push(r);
      receiver.respond(r, res);
    });
  };
  const server = tls ? https.createServer(tls, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  receiver.port = port;
  receiver.url = `${tls ? 'https' : 'http'}://127.0.0.1:${port}`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** A self-signed certificate for 127.0.0.1 from Debian's openssl, or null where there is none. */
export function selfSignedCert(dir: string): { key: string; cert: string } | null {
  const keyFile = path.join(dir, 'tls-key.pem');
  const certFile = path.join(dir, 'tls-cert.pem');
  const r = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  if (r.error || r.status !== 0) return null;
  return { key: fs.readFileSync(keyFile, 'utf8'), cert: fs.readFileSync(certFile, 'utf8') };
}

/** What a browser holds for a push subscription: its ECDH pair and auth secret. */
export function browserKeys(): { p256dh: string; auth: string; decrypt(body: Buffer): Buffer } {
  const ecdh = createECDH('prime256v1');
  const uaPublic = ecdh.generateKeys();
  const authSecret = randomBytes(16);
  return {
    p256dh: uaPublic.toString('base64url'),
    auth: authSecret.toString('base64url'),
    decrypt: (body) => decryptAes128gcm(body, ecdh.getPrivateKey(), uaPublic, authSecret),
  };
}

const hmac = (key: Buffer, ...data: Buffer[]) => {
  const h = createHmac('sha256', key);
  for (const d of data) h.update(d);
  return h.digest();
};

/** RFC 8291 / RFC 8188 decryption of a single-record aes128gcm body, written from the RFCs, not from web-push. */
export function decryptAes128gcm(body: Buffer, uaPrivate: Buffer, uaPublic: Buffer, authSecret: Buffer): Buffer {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idlen = body.readUInt8(20);
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  if (ciphertext.length > rs) throw new Error('more than one record');
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(uaPrivate);
  const shared = ecdh.computeSecret(asPublic);
  const prkKey = hmac(authSecret, shared);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic]);
  const ikm = hmac(prkKey, keyInfo, Buffer.from([1]));
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0'), Buffer.from([1])).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0'), Buffer.from([1])).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('missing last-record delimiter');
  return padded.subarray(0, end);
}

/** Checks a `vapid t=<jwt>, k=<key>` Authorization header (RFC 8292) and returns the JWT claims. */
export function verifyVapid(authorization: string | undefined, publicKey: string): Record<string, unknown> {
  const m = /^vapid t=([^,\s]+), k=([A-Za-z0-9_-]+)$/.exec(authorization ?? '');
  if (!m) throw new Error(`not a vapid Authorization header: ${authorization}`);
  const [, jwt = '', k = ''] = m;
  if (k !== publicKey) throw new Error('k is not the server public key');
  const [header = '', claims = '', sig = ''] = jwt.split('.');
  const point = Buffer.from(k, 'base64url');
  const key = createPublicKey({
    key: {
      kty: 'EC',
      crv: 'P-256',
      x: point.subarray(1, 33).toString('base64url'),
      y: point.subarray(33, 65).toString('base64url'),
    },
    format: 'jwk',
  });
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(sig, 'base64url'),
  );
  if (!ok) throw new Error('VAPID JWT signature does not verify');
  const head = JSON.parse(Buffer.from(header, 'base64url').toString()) as Record<string, unknown>;
  if (head.alg !== 'ES256') throw new Error(`alg ${String(head.alg)}`);
  return JSON.parse(Buffer.from(claims, 'base64url').toString()) as Record<string, unknown>;
}
