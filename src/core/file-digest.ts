import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** A file's size and sha256, read as a stream (a packed workspace's bundle can be a GiB). */
export async function fileDigest(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return { bytes: fs.statSync(file).size, sha256: hash.digest('hex') };
}
