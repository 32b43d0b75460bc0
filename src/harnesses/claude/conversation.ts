// Claude Code's conversation carried to another machine (issue 32): the session's transcript
// (`<config dir>/projects/<folder named from the cwd>/<session>.jsonl`), the session's own folder beside it
// (sub-agents' transcripts, tool results too large for a line) and the project's memory folder, put back under the
// target's Claude dir in the folder named from the agent's workspace there, and nowhere else. Measured with claude
// 2.1.328: `--resume <id>` finds a session in any project folder and runs in the directory it starts in, whatever
// `cwd` the transcript's lines recorded, so the lines travel as they are.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { filesUnder } from '../../core/files-under.js';
import { ConversationManifest, type ConversationFile } from '../../wire/conversation-pack.js';
import { conversationFile, type ConversationCarrier, type ConversationPlace } from '../conversation.js';
import { projectFolderName, transcriptPath } from './conversations.js';
import { locateClaudeHome, type ClaudeHome } from './home.js';
import { renameSession } from './session-rename.js';

const TRANSCRIPT = 'transcript.jsonl';
const SESSION_DIR = 'session';
const MEMORY_DIR = 'memory';

export const claudeConversation: ConversationCarrier = {
  async pack(place, sessionId) {
    const workspace = realWorkspace(place.workspace);
    const transcript = transcriptPath(claudeHome(place).projectsDir, sessionId, workspace);
    if (transcript === null) throw new Error(`Claude has no transcript of session ${sessionId}`);
    const sessionDir = transcript.slice(0, -'.jsonl'.length);
    const memoryDir = path.join(path.dirname(transcript), MEMORY_DIR);
    const sources: [string, string][] = [
      [transcript, TRANSCRIPT],
      ...filesUnder(sessionDir).map((rel): [string, string] => [path.join(sessionDir, rel), `${SESSION_DIR}/${rel}`]),
      ...filesUnder(memoryDir).map((rel): [string, string] => [path.join(memoryDir, rel), `${MEMORY_DIR}/${rel}`]),
    ];
    const files: ConversationFile[] = [];
    for (const [from, rel] of sources) {
      const to = path.join(place.dir, rel);
      fs.mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
      fs.copyFileSync(from, to);
      files.push(await conversationFile(place.dir, rel));
    }
    return { version: 1, harness: 'claude', session_id: sessionId, workspace, files };
  },

  async unpack(place, given) {
    const manifest = ConversationManifest.parse(given);
    if (manifest.harness !== 'claude') throw new Error(`a ${manifest.harness} conversation is not Claude's`);
    if (!manifest.files.some((f) => f.path === TRANSCRIPT)) throw new Error('the pack has no Claude transcript');
    const home = claudeHome(place);
    const workspace = realWorkspace(place.workspace);
    const folder = path.join(home.projectsDir, projectFolderName(workspace));
    const read = (rel: string) => fs.readFileSync(path.join(place.dir, rel));
    const sessionId = freeSessionId(home.projectsDir, workspace, manifest.session_id, read(TRANSCRIPT));
    // Every file placed before any is written, so a refused pack leaves nothing behind; the transcript last, since
    // until it is there the session is not one Claude (or canResume) can find.
    const writes = [...manifest.files.filter((f) => f.path !== TRANSCRIPT), { path: TRANSCRIPT }].map((f) => ({
      rel: f.path,
      target: targetOf(f.path, home, folder, sessionId),
    }));
    for (const { rel, target } of writes) {
      // The project's memory may hold the target's own notes: those are kept.
      if (rel.startsWith(`${MEMORY_DIR}/`) && fs.existsSync(target)) continue;
      const content =
        rel.endsWith('.jsonl') && sessionId !== manifest.session_id
          ? renameSession(read(rel).toString('utf8'), manifest.session_id, sessionId)
          : read(rel);
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, content, { mode: 0o600 });
    }
    return { sessionId };
  },
};

function claudeHome(place: ConversationPlace): ClaudeHome {
  return locateClaudeHome(place.home.env, place.home.baseEnv);
}

/** Claude names the project folder from the real path of its working directory. */
function realWorkspace(workspace: string): string {
  return fs.existsSync(workspace) ? fs.realpathSync(workspace) : workspace;
}

/**
 * The session id the conversation takes on the target: its own, unless the target's Claude already holds another
 * conversation of that id (a copy that came back, a move back to where its first transcript stayed), which a new id
 * keeps apart: `--resume <id>` looks in every project folder. The same transcript already in place (a retried
 * move) keeps the id.
 */
function freeSessionId(projectsDir: string, workspace: string, sessionId: string, transcript: Buffer): string {
  const existing = transcriptPath(projectsDir, sessionId, workspace);
  if (existing === null) return sessionId;
  const ours = path.join(projectsDir, projectFolderName(workspace), `${sessionId}.jsonl`);
  const retried = existing === ours && fs.readFileSync(existing).equals(transcript);
  return retried ? sessionId : randomUUID();
}

/** Where a packed file goes in the target's Claude dir; refused when it is none of Claude's or would land outside. */
function targetOf(rel: string, home: ClaudeHome, folder: string, sessionId: string): string {
  const [head, ...rest] = rel.split('/');
  let target: string;
  if (rel === TRANSCRIPT) target = path.join(folder, `${sessionId}.jsonl`);
  else if (head === SESSION_DIR && rest.length > 0) target = path.join(folder, sessionId, ...rest);
  else if (head === MEMORY_DIR && rest.length > 0) target = path.join(folder, MEMORY_DIR, ...rest);
  else throw new Error(`the pack's ${rel} is not part of a Claude conversation`);
  const inside = path.relative(home.dir, target);
  if (inside === '..' || inside.startsWith(`..${path.sep}`) || path.isAbsolute(inside))
    throw new Error(`the pack's ${rel} would land outside Claude's dir`);
  return target;
}
