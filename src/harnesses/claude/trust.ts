import fs from 'node:fs';
import path from 'node:path';

export type TrustOutcome = 'trusted' | 'already' | 'unreadable';

/**
 * Marks `workspace` trusted in Claude's global config, so interactive Claude starts there without its "Is this a
 * project you created or one you trust?" dialog, whose default answer exits. Leo owns its agents' workspaces and
 * nobody sits at their terminals, so the question has no one to answer it. Only `projects[<workspace>]
 * .hasTrustDialogAccepted` changes; every other key is written back as read. The file is replaced by a rename, so
 * a Claude reading it meanwhile sees the old or the new file, never half of one. A file that is not JSON is left
 * alone: the dialog then shows, and delivery says so in the thread.
 */
export function trustWorkspace(configFile: string, workspace: string): TrustOutcome {
  // Claude keys projects by the real path of its working directory.
  const key = fs.existsSync(workspace) ? fs.realpathSync(workspace) : workspace;
  let config: Record<string, unknown> = {};
  let mode = 0o600;
  try {
    const text = fs.readFileSync(configFile, 'utf8');
    mode = fs.statSync(configFile).mode & 0o777;
    const parsed: unknown = JSON.parse(text);
    if (!isObject(parsed)) return 'unreadable';
    config = parsed;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return 'unreadable';
  }
  const projects = isObject(config.projects) ? config.projects : {};
  const entry = isObject(projects[key]) ? projects[key] : {};
  if (entry.hasTrustDialogAccepted === true) return 'already';
  const next = { ...config, projects: { ...projects, [key]: { ...entry, hasTrustDialogAccepted: true } } };
  fs.mkdirSync(path.dirname(configFile), { recursive: true, mode: 0o700 });
  const tmp = `${configFile}.leo-${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(next, null, 2) + '\n', { mode });
  fs.renameSync(tmp, configFile);
  return 'trusted';
}

function isObject(v: unknown): v is Record<string, any> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
