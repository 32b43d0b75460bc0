import { createHash } from 'node:crypto';
import fs from 'node:fs';

/** A file's size and sha256, read as a stream (a packed workspace's bundle can be a GiB). */
export async function fileDigest(file: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return { bytes: fs.statSync(file).size, sha256: hash.digest('hex') };
}

/** How a file differs from the size and sha256 its pack's manifest lists for it; null when it matches. */
export async function digestMismatch(file: string, want: { bytes: number; sha256: string }): Promise<string | null> {
  if (!fs.existsSync(file)) return 'is missing';
  const got = await fileDigest(file);
  if (got.bytes !== want.bytes) return `has ${got.bytes} bytes, not ${want.bytes}`;
  if (got.sha256 !== want.sha256) return 'does not match its sha256';
  return null;
}
