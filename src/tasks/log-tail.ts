import fs from 'node:fs/promises';

/**
 * The last `max` bytes of a file, starting after the first newline inside them when cut (so the text starts on a
 * whole line and a multi-byte character is never split at the front). Reads only that much, however long the log.
 */
export async function readTail(
  file: string,
  max: number,
): Promise<{ text: string; bytes: number; truncated: boolean }> {
  const fh = await fs.open(file, 'r');
  try {
    const { size } = await fh.stat();
    const start = Math.max(0, size - max);
    const buf = Buffer.alloc(size - start);
    await fh.read(buf, 0, buf.length, start);
    if (start === 0) return { text: buf.toString(), bytes: size, truncated: false };
    const nl = buf.indexOf(0x0a);
    return { text: buf.subarray(nl < 0 ? 0 : nl + 1).toString(), bytes: size, truncated: true };
  } finally {
    await fh.close();
  }
}
