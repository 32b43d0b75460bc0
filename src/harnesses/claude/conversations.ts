import fs from 'node:fs';
import path from 'node:path';

/** Claude cuts a project folder's name here and tells long paths apart by a hash of the whole (2.1.328's own rule). */
const MAX_FOLDER_NAME = 200;

/**
 * The folder under `<config dir>/projects` where Claude keeps the transcripts of sessions started in `cwd` (its real
 * path): every character but an ASCII letter or digit becomes `-`; a name over 200 characters is cut there and gets
 * the base-36 of the path's 32-bit djb2 hash.
 */
export function projectFolderName(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= MAX_FOLDER_NAME) return name;
  let hash = 0;
  for (let i = 0; i < cwd.length; i++) hash = ((hash << 5) - hash + cwd.charCodeAt(i)) | 0;
  return `${name.slice(0, MAX_FOLDER_NAME)}-${Math.abs(hash).toString(36)}`;
}

/**
 * Claude's transcript of `sessionId`: the non-empty `<session>.jsonl` in any project folder, the folder named from
 * `cwd` first when given. Null when Claude never wrote one (a session that ended before its first prompt).
 */
export function transcriptPath(projectsDir: string, sessionId: string, cwd?: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) return null;
  let folders: string[];
  try {
    folders = fs.readdirSync(projectsDir);
  } catch {
    return null;
  }
  const own = cwd === undefined ? null : projectFolderName(cwd);
  if (own !== null && folders.includes(own)) folders = [own, ...folders.filter((f) => f !== own)];
  for (const folder of folders) {
    const file = path.join(projectsDir, folder, `${sessionId}.jsonl`);
    try {
      if (fs.statSync(file).size > 0) return file;
    } catch {
      // Not in this folder.
    }
  }
  return null;
}

/**
 * Whether Claude has a transcript for `sessionId`, in any project folder. `--resume <id>` of a conversation Claude
 * never wrote (a session that ended before its first prompt) exits at once, like `--continue` with none at all.
 */
export function conversationExists(projectsDir: string, sessionId: string): boolean {
  return transcriptPath(projectsDir, sessionId) !== null;
}
