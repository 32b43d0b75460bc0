// The tail of a JSONL file, whichever harness wrote it: a transcript of any size costs the same to read.
import fs from 'node:fs/promises';

export const DEFAULT_TAIL_BYTES = 8 * 1024 * 1024;

/** The whole lines of a JSONL file's last `maxBytes` (any harness's transcript); a missing file has none. */
export async function readTailLines(file: string, opts: { maxBytes?: number } = {}): Promise<string[]> {
  const maxBytes = Math.max(1, Math.floor(opts.maxBytes ?? DEFAULT_TAIL_BYTES));
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(0, size - maxBytes);
    // One byte before the window tells whether it starts on a line boundary or inside a line that must be dropped.
    const from = start > 0 ? start - 1 : 0;
    const buf = Buffer.allocUnsafe(size - from);
    let got = 0;
    while (got < buf.length) {
      const { bytesRead } = await handle.read(buf, got, buf.length - got, from + got);
      if (bytesRead === 0) break; // truncated under us: parse what there is
      got += bytesRead;
    }
    let body = buf.subarray(0, got);
    if (start > 0) {
      const nl = body.indexOf(0x0a);
      if (nl < 0) return [];
      body = body.subarray(nl + 1);
    }
    // Cutting right after a newline keeps UTF-8 intact: 0x0a never occurs inside a multi-byte sequence.
    return body.toString('utf8').split('\n');
  } finally {
    await handle.close();
  }
}
