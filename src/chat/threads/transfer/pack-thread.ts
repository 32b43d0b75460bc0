import fs from 'node:fs';
import path from 'node:path';
import type { Database } from '../../../store/database.js';
import { THREAD_FILES, type PackedAttachment, type ThreadManifest } from '../../../wire/thread-pack.js';
import { describeFile, jsonLines } from './thread-files.js';
import { readThread } from './thread-rows.js';

/**
 * Writes `agent`'s thread into `dir`: its rows as read in one transaction, and a copy of each attachment's file (the
 * source keeps its own). A file gone from disk since its row was read travels as pruned, as the pruner would leave it.
 */
export async function packThread(db: Database, agent: string, dir: string): Promise<ThreadManifest> {
  const rows = readThread(db, agent);
  fs.mkdirSync(path.join(dir, 'attachments'), { recursive: true });
  const attachments: PackedAttachment[] = [];
  for (const { path: source, ...a } of rows.attachments) {
    const file = a.available === 1 ? await copied(source, dir, `attachments/${a.id}`) : null;
    attachments.push({ ...a, available: file === null ? 0 : 1, file });
  }
  const write = (name: string, text: string) => fs.writeFileSync(path.join(dir, name), text);
  write(THREAD_FILES.messages, jsonLines(rows.messages));
  write(THREAD_FILES.attachments, jsonLines(attachments));
  write(THREAD_FILES.reminders, jsonLines(rows.reminders));
  write(THREAD_FILES.read, JSON.stringify({ last_read_id: rows.lastReadId }));
  const names = [...Object.values(THREAD_FILES), ...attachments.flatMap((a) => (a.file === null ? [] : [a.file]))];
  const files = [];
  for (const name of names) files.push(await describeFile(dir, name));
  return {
    version: 1,
    agent,
    messages: rows.messages.length,
    attachments: attachments.length,
    files,
  };
}

/** Copies `source` to `name` under `dir`; null when the file is no longer there. */
async function copied(source: string, dir: string, name: string): Promise<string | null> {
  try {
    await fs.promises.copyFile(source, path.join(dir, name));
    return name;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
