import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface TestCa {
  dir: string;
  /** The CA certificate (PEM), for a client's `ca`. */
  caPem: Buffer;
  /** Makes a leaf signed by the CA for these names (localhost and 127.0.0.1 always), in <dir>/<label>-{cert,key}.pem. */
  leaf(label: string, names?: string[]): { cert: string; key: string; spki: string };
}

/** A throwaway CA made with openssl in `dir`: what the HTTPS tests trust. */
export function makeTestCa(dir: string): TestCa {
  const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  ssl('req', '-x509', ...ec, '-keyout', 'ca-key.pem', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Leo test CA');
  return {
    dir,
    caPem: fs.readFileSync(path.join(dir, 'ca.pem')),
    leaf(label, names = []) {
      const cert = path.join(dir, `${label}-cert.pem`);
      const key = path.join(dir, `${label}-key.pem`);
      const san = ['DNS:localhost', 'IP:127.0.0.1', ...names.map((n) => `DNS:${n}`)].join(',');
      fs.writeFileSync(path.join(dir, `${label}.ext`), `subjectAltName=${san}\n`);
      ssl('req', ...ec, '-keyout', key, '-out', `${label}.csr`, '-subj', `/CN=${label}`);
      ssl(
        'x509',
        '-req',
        '-in',
        `${label}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca-key.pem',
        '-CAcreateserial',
        '-days',
        '2',
        '-extfile',
        `${label}.ext`,
        '-out',
        cert,
      );
      const spki = crypto
        .createHash('sha256')
        .update(new crypto.X509Certificate(fs.readFileSync(cert)).publicKey.export({ type: 'spki', format: 'der' }))
        .digest('base64');
      return { cert, key, spki };
    },
  };
}
