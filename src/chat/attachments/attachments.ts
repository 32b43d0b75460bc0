import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import type { Clock } from '../../core/clock.js';
import { encodeTime } from 'ulid';
import { newId } from '../../core/ids.js';
import { rfc3339 } from '../../core/time.js';
import type { Database } from '../../store/database.js';
import type { AttachmentRef } from '../../wire/message.js';
import { HEAD_BYTES, sniffMedia } from './audio-magic.js';
import { LeoError } from '../../core/leo-error.js';
import { isBelow } from '../../core/path-inside.js';

/** Whether a file is audio by its bytes, ffprobe judging (on the pool): workers/audio-judge.ts. */
export type AudioJudge = (
  file: string,
) => Promise<{ audio: true; mime: string | null } | { audio: false; why: string }>;

/** Ids are ULIDs: the smallest id minted at `ms` bounds everything created before it, on the primary key. */
const idBound = (ms: number) => `${encodeTime(Math.max(0, ms), 10)}${'0'.repeat(16)}`;

/** Uploads made without an agent wait here until a message claims them. */
export const UNCLAIMED = '_unclaimed';

/** A message's files in the order its sender listed them (rows from before the position column: upload order). */
export const IN_MESSAGE_ORDER = 'ORDER BY position, id';

/** The rows that count against a thread's upload quota: available, and unsent or in an inbound message. */
const UPLOADS = `LEFT JOIN messages m ON m.id = a.message_id
  WHERE a.available = 1 AND (a.message_id IS NULL OR m.direction = 'in')`;

/** A 413 is body_too_large unless it says otherwise (a full quota is a 413 too): the declared length and the streamed
 * bytes giving the size away answer alike. */
export class AttachmentError extends LeoError {
  constructor(
    readonly status: 400 | 404 | 413,
    message: string,
    code: string | undefined = status === 413 ? 'body_too_large' : undefined,
  ) {
    super(status, message, code);
  }
}

/** Refusal of an upload that would take a thread past chat.attachment_quota_bytes. */
function quotaError(agent: string, used: number, quota: number): AttachmentError {
  const whose = agent === UNCLAIMED ? 'uploads not yet sent in a message' : `${agent}'s thread`;
  return new AttachmentError(
    413,
    `${whose} already hold ${used} bytes of the ${quota}-byte upload quota (chat.attachment_quota_bytes); ` +
      'files are freed as chat.attachment_retention prunes them',
    'upload_quota',
  );
}

/**
 * A file name that is safe as the last path segment: no separators, no control characters, no leading dots, at most
 * 200 bytes; whatever is left of the original stays readable. Bidi controls (U+061C, U+200E/F, U+202A–E, U+2066–9)
 * and the line/paragraph separators go too: `invoice\u202Efdp.exe` would show as `invoiceexe.pdf`. Pure.
 */
export function sanitizeFilename(raw: string): string {
  const base = raw.split(/[\\/]/).pop() ?? '';
  let name = base
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, '')
    .replace(/[<>:"|?*]/g, '_')
    .replace(/^[.\s]+/, '')
    .trim();
  // Cut by code point: dropping single UTF-16 units could leave half a surrogate pair, which is no character at all.
  if (Buffer.byteLength(name) > 200) {
    let cut = '';
    for (const ch of name) {
      if (Buffer.byteLength(cut + ch) > 200) break;
      cut += ch;
    }
    name = cut;
  }
  return name || 'file';
}

const MIME: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.m4a': 'audio/mp4',
  '.ogg': 'audio/ogg',
  '.opus': 'audio/ogg',
  '.mp3': 'audio/mpeg',
  '.wav': 'audio/wav',
  '.webm': 'audio/webm',
  '.caf': 'audio/x-caf',
  '.aac': 'audio/aac',
  '.flac': 'audio/flac',
  '.mp4': 'video/mp4',
};

/**
 * The type a file claims: its declared content type without parameters (MediaRecorder's `audio/webm;codecs=opus` is
 * `audio/webm`), else its extension's.
 */
export function mimeOf(filename: string, declared?: string): string {
  const type = declared?.split(';')[0]!.trim();
  if (type && /^[\w.+-]+\/[\w.+-]+$/.test(type)) return type.toLowerCase();
  return MIME[path.extname(filename).toLowerCase()] ?? 'application/octet-stream';
}

/**
 * Attachment files under $LEO_HOME/state/chat/attachments/<agent>/<id>/<name>, and their rows. Every path is built
 * from a fresh id and a sanitized name and checked to stay inside the root, so no input can write elsewhere.
 */
export class AttachmentStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
    readonly root: string,
    /** Uploaded bytes a thread may keep (chat.attachment_quota_bytes), read at each upload. */
    private readonly quotaBytes: () => number = () => Number.POSITIVE_INFINITY,
    /** Asked about an upload whose first bytes are a container that may hold video; none: such files keep their claim. */
    private readonly judgeAudio?: AudioJudge,
  ) {}

  /**
   * Streams an upload to disk, refusing (and removing) it past maxBytes. The row has no message yet. A client names
   * a file, never a path: a name with a separator or a `..` is refused before anything is written.
   */
  async saveStream(agent: string, rawName: string, declaredMime: string | undefined, body: Readable, maxBytes: number) {
    if (/[\\/]/.test(rawName) || rawName === '..' || rawName === '.')
      throw new AttachmentError(400, `filename must be a plain file name, not a path: ${JSON.stringify(rawName)}`);
    const quota = this.quotaBytes();
    const room = quota - this.uploadedBytes(agent);
    if (room <= 0) throw quotaError(agent, quota - room, quota);
    const { id, file, filename } = this.place(agent, rawName);
    let bytes = 0;
    let head = Buffer.alloc(0);
    const cap = new Transform({
      transform(chunk: Buffer, _enc, done) {
        if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        bytes += chunk.length;
        if (bytes > maxBytes) done(new AttachmentError(413, `attachment is larger than ${maxBytes} bytes`));
        else if (bytes > room) done(quotaError(agent, quota - room, quota));
        else done(null, chunk);
      },
    });
    try {
      await pipeline(body, cap, fs.createWriteStream(file, { mode: 0o600, flags: 'wx' }));
      // Uploads to one thread may run side by side: the quota is checked again where the row is recorded, in the
      // same synchronous step, so together they cannot pass it.
      const used = this.uploadedBytes(agent);
      if (used + bytes > quota) throw quotaError(agent, used, quota);
    } catch (err) {
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
      throw err;
    }
    const mime = await this.contentMime(file, head, mimeOf(filename, declaredMime));
    return this.record(id, agent, filename, mime, bytes, file);
  }

  /**
   * An upload is audio by its bytes, whatever its name or declared type says: audio magic names the type, and a
   * container that may hold video is audio when the judge finds sound and no picture in it. Anything else keeps the
   * type it claims; a claim of audio that the bytes do not bear out fails at transcription, with a note saying so.
   */
  private async contentMime(file: string, head: Buffer, claimed: string): Promise<string> {
    const sniff = sniffMedia(head);
    if (sniff.verdict === 'audio') return sniff.mime;
    if (sniff.verdict !== 'container') return claimed;
    if (claimed.startsWith('audio/')) return sniff.mime;
    if (!this.judgeAudio) return claimed;
    const verdict = await this.judgeAudio(file).catch(() => null);
    return verdict?.audio ? (verdict.mime ?? sniff.mime) : claimed;
  }

  /** Copies a file an agent posts (leo_chat_post files) into the store. */
  saveCopy(agent: string, source: string, maxBytes: number): AttachmentRef {
    let st: fs.Stats;
    try {
      st = fs.statSync(source);
    } catch {
      throw new AttachmentError(400, `file not found: ${source}`);
    }
    if (!st.isFile()) throw new AttachmentError(400, `not a regular file: ${source}`);
    if (st.size > maxBytes) throw new AttachmentError(413, `${source} is larger than ${maxBytes} bytes`);
    const { id, file, filename } = this.place(agent, path.basename(source));
    fs.copyFileSync(source, file);
    fs.chmodSync(file, 0o600);
    return this.record(id, agent, filename, mimeOf(filename), st.size, file);
  }

  /** The file of an attachment in this agent's thread, when it is still on disk. */
  fileOf(agent: string, id: string): { path: string; ref: AttachmentRef } | null {
    const row = this.db
      .prepare('SELECT id, filename, mime, bytes, available, path FROM attachments WHERE id = ? AND agent = ?')
      .get(id, agent) as (Omit<AttachmentRef, 'available'> & { available: number; path: string }) | undefined;
    if (!row) return null;
    const { path: file, available, ...rest } = row;
    return { path: file, ref: { ...rest, available: available === 1 && fs.existsSync(file) } };
  }

  /**
   * Gives uploads to a new inbound message in `agent`'s thread: an upload belongs to the first message that sends it
   * (one made without an agent moves into that agent's folder). The one exception is a resend: a file of an inbound
   * message in this thread whose delivery failed may be sent again, and moves to the new message. Returns the failed
   * messages that gave files up. Unknown ids, and files already sent in any other message, are refused.
   */
  claim(agent: string, ids: readonly string[]): string[] {
    const rows = ids.map((id) => {
      const row = this.db
        .prepare(
          `SELECT a.agent, a.path, a.bytes, a.message_id, m.direction = 'in' AND m.state = 'failed' AS resendable
             FROM attachments a LEFT JOIN messages m ON m.id = a.message_id WHERE a.id = ? AND a.available = 1`,
        )
        .get(id) as
        | { agent: string; path: string; bytes: number; message_id: string | null; resendable: number | null }
        | undefined;
      const free = row && (row.message_id === null || (row.resendable === 1 && row.agent === agent));
      if (!row || !free || (row.agent !== agent && row.agent !== UNCLAIMED))
        throw new AttachmentError(400, `attachment ${id} is unknown or already sent`);
      return { id, ...row };
    });
    // Uploads made without an agent join the thread's quota as they move into it.
    const incoming = rows.filter((r) => r.agent !== agent).reduce((n, r) => n + r.bytes, 0);
    const used = this.uploadedBytes(agent);
    if (incoming > 0 && used + incoming > this.quotaBytes()) throw quotaError(agent, used, this.quotaBytes());
    for (const r of rows) {
      if (r.agent === agent) continue;
      const dir = path.join(this.root, agent, r.id);
      fs.mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
      fs.renameSync(path.dirname(r.path), dir);
      this.db
        .prepare('UPDATE attachments SET agent = ?, path = ? WHERE id = ?')
        .run(agent, path.join(dir, path.basename(r.path)), r.id);
    }
    return [...new Set(rows.flatMap((r) => (r.message_id ? [r.message_id] : [])))];
  }

  /**
   * A renamed agent's files move to its new folder. Runs inside the rename's transaction, after the rows took the new
   * name and last of all: a failure rolls the rows back and puts back whatever it had moved, so the thread's files are
   * never split between the two folders.
   */
  moveAgent(from: string, to: string): void {
    const src = path.join(this.root, from);
    const dst = path.join(this.root, to);
    this.db
      .prepare('UPDATE attachments SET path = ? || substr(path, ?) WHERE agent = ? AND substr(path, 1, ?) = ?')
      .run(dst, src.length + 1, to, src.length + 1, src + path.sep);
    if (!fs.existsSync(src)) return;
    if (!fs.existsSync(dst)) return fs.renameSync(src, dst);
    // The name's earlier owner (a removed agent) left files: the two threads' folders merge, as their messages do.
    const moved: string[] = [];
    try {
      for (const entry of fs.readdirSync(src)) {
        fs.renameSync(path.join(src, entry), path.join(dst, entry));
        moved.push(entry);
      }
      fs.rmdirSync(src);
    } catch (err) {
      for (const entry of moved) fs.renameSync(path.join(dst, entry), path.join(src, entry));
      throw err;
    }
  }

  /**
   * Bytes of uploads a thread holds against its quota: files still on disk that are not yet in a message or belong
   * to an inbound one (an agent's own posts do not count).
   */
  uploadedBytes(agent: string): number {
    return this.db
      .prepare(`SELECT COALESCE(SUM(a.bytes), 0) FROM attachments a ${UPLOADS} AND a.agent = ?`)
      .pluck()
      .get(agent) as number;
  }

  /** uploadedBytes() of every thread that holds any (uploads not yet sent under UNCLAIMED). */
  uploadTotals(): Map<string, number> {
    const rows = this.db
      .prepare(`SELECT a.agent, SUM(a.bytes) AS bytes FROM attachments a ${UPLOADS} GROUP BY a.agent`)
      .all() as { agent: string; bytes: number }[];
    return new Map(rows.map((r) => [r.agent, r.bytes]));
  }

  /** Files still on disk that were created before `cutoff` (ms), oldest first, at most `limit`. */
  expired(cutoff: number, limit = 500): { id: string; path: string }[] {
    return this.db
      .prepare('SELECT id, path FROM attachments WHERE available = 1 AND id < ? ORDER BY id LIMIT ?')
      .all(idBound(cutoff), limit) as { id: string; path: string }[];
  }

  /**
   * Uploads no message claimed, made before `cutoff` (ms), at most `limit`: marked unavailable in the same
   * transaction (so no message can claim one whose file is about to go) and returned for their files to be removed.
   */
  withdrawUnclaimed(cutoff: number, limit = 500): { id: string; path: string }[] {
    return this.db.transaction(() => {
      const rows = this.db
        .prepare(
          'SELECT id, path FROM attachments WHERE available = 1 AND message_id IS NULL AND id < ? ORDER BY id LIMIT ?',
        )
        .all(idBound(cutoff), limit) as { id: string; path: string }[];
      this.markPruned(rows.map((r) => r.id));
      return rows;
    })();
  }

  /** The row stays (the thread still shows the file's name and size), marked unavailable. */
  markPruned(ids: readonly string[]): void {
    const mark = this.db.prepare('UPDATE attachments SET available = 0 WHERE id = ?');
    this.db.transaction(() => ids.forEach((id) => mark.run(id)))();
  }

  /** The file of a message's first audio attachment (by the type recorded at upload), if any. */
  audioOf(messageId: string): string | null {
    const file = this.db
      .prepare(`SELECT path FROM attachments WHERE message_id = ? AND mime LIKE 'audio/%' ${IN_MESSAGE_ORDER} LIMIT 1`)
      .pluck()
      .get(messageId) as string | undefined;
    return file ?? null;
  }

  /** Absolute paths of a message's attachments, for the delivered text. */
  pathsOf(messageId: string): string[] {
    return this.db
      .prepare(`SELECT path FROM attachments WHERE message_id = ? ${IN_MESSAGE_ORDER}`)
      .pluck()
      .all(messageId) as string[];
  }

  private place(agent: string, rawName: string): { id: string; file: string; filename: string } {
    const id = newId(this.clock.now());
    const { file, filename } = this.pathFor(agent, id, rawName);
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    return { id, file, filename };
  }

  /**
   * Where attachment `id` of `agent`'s thread keeps its file (in a folder of its own): an upload's, and each file of a
   * thread that moved here from another host (src/chat/threads/transfer/).
   */
  pathFor(agent: string, id: string, rawName: string): { file: string; filename: string } {
    const filename = sanitizeFilename(rawName);
    const file = path.join(this.root, agent, id, filename);
    if (!isBelow(this.root, file)) throw new AttachmentError(400, 'invalid attachment path');
    return { file, filename };
  }

  private record(
    id: string,
    agent: string,
    filename: string,
    mime: string,
    bytes: number,
    file: string,
  ): AttachmentRef {
    this.db
      .prepare(
        'INSERT INTO attachments (id, agent, filename, mime, bytes, path, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(id, agent, filename, mime, bytes, file, rfc3339(this.clock.now()));
    return { id, filename, mime, bytes, available: true };
  }
}
