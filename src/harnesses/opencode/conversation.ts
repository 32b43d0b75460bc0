// opencode's conversation carried to another machine (issue 32), through the CLI's own way in and out: opencode keeps
// its sessions in a SQLite database under $XDG_DATA_HOME/opencode, whose schema is its own business, and `opencode
// export <id>` / `opencode import <file>` are its stable form of one session. Both run with the agent's environment
// (its XDG folders say whose database) and `--pure` (no plugins: Leo's would report the run as the agent's turn).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ExecOptions } from '../../core/exec.js';
import { ConversationManifest } from '../../wire/conversation-pack.js';
import { conversationFile, type ConversationCarrier, type ConversationPlace } from '../conversation.js';
import { rehomeExport } from './session-export.js';

const EXPORT = 'session.json';
/** One start of opencode: about 3 s on an idle machine, much more on a loaded one. */
const CLI_TIMEOUT_MS = 120_000;

export const opencodeConversation: ConversationCarrier = {
  async pack(place, sessionId) {
    const file = path.join(place.dir, EXPORT);
    // Straight into the file: exec's output buffer would cut a long session (pasted images are inline) short.
    const r = await place.exec(
      'sh',
      ['-c', 'exec opencode export --pure "$1" > "$2"', 'sh', sessionId, file],
      cliOptions(place),
    );
    if (r.code !== 0) throw new Error(`opencode export of session ${sessionId} failed: ${lastLine(r.stderr)}`);
    return {
      version: 1,
      harness: 'opencode',
      session_id: sessionId,
      workspace: place.workspace,
      files: [await conversationFile(place.dir, EXPORT)],
    };
  },

  async unpack(place, given) {
    const manifest = ConversationManifest.parse(given);
    if (manifest.harness !== 'opencode') throw new Error(`a ${manifest.harness} conversation is not opencode's`);
    if (manifest.files.length !== 1 || manifest.files[0]!.path !== EXPORT)
      throw new Error(`an opencode pack holds ${EXPORT} alone, not ${manifest.files.map((f) => f.path).join(', ')}`);
    if (!path.isAbsolute(manifest.workspace)) throw new Error(`the pack's workspace ${manifest.workspace} is relative`);
    // opencode files the session under the project of the folder its import runs in, which must be there first.
    if (!fs.statSync(place.workspace, { throwIfNoEntry: false })?.isDirectory())
      throw new Error(`the workspace ${place.workspace} is not there yet: unpack it before the conversation`);
    const { text, sessionId } = rehomeExport(
      fs.readFileSync(path.join(place.dir, EXPORT), 'utf8'),
      { workspace: manifest.workspace },
      { workspace: place.workspace },
    );
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-opencode-import-'));
    try {
      const file = path.join(scratch, EXPORT);
      fs.writeFileSync(file, text, { mode: 0o600 });
      const r = await place.exec('opencode', ['import', '--pure', file], cliOptions(place));
      if (r.code !== 0 || !r.stdout.includes(`Imported session: ${sessionId}`))
        throw new Error(`opencode import failed: ${lastLine(r.stderr) || lastLine(r.stdout)}`);
    } finally {
      fs.rmSync(scratch, { recursive: true, force: true });
    }
    return { sessionId };
  },
};

function cliOptions(place: ConversationPlace): ExecOptions {
  // opencode takes its folder from PWD before its cwd (measured): the daemon's own PWD would file the session there.
  const env = { ...place.home.baseEnv, ...place.home.env, PWD: place.workspace };
  return { cwd: place.workspace, env, timeoutMs: CLI_TIMEOUT_MS };
}

function lastLine(output: string): string {
  return output.trim().split('\n').at(-1) ?? '';
}
