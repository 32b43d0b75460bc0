import fs from 'node:fs';
import path from 'node:path';

/**
 * Whether Claude has a transcript for `sessionId`, in any project folder. `--resume <id>` of a conversation Claude
 * never wrote (a session that ended before its first prompt) exits at once, like `--continue` with none at all.
 */
export function conversationExists(projectsDir: string, sessionId: string): boolean {
  if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) return false;
  let folders: string[];
  try {
    folders = fs.readdirSync(projectsDir);
  } catch {
    return false;
  }
  return folders.some((f) => {
    try {
      return fs.statSync(path.join(projectsDir, f, `${sessionId}.jsonl`)).size > 0;
    } catch {
      return false;
    }
  });
}
