// Codex's conversation on the move (issue 32): the session's rollout is everything `codex resume <id>` reads, so
// it travels alone, byte for byte, and lands in the target's CODEX_HOME under the day folder its name gives.
// Measured against codex 0.171.0: see docs/harnesses/codex.md, "Moving to another machine".
import fs from 'node:fs';
import path from 'node:path';
import { fileDigest } from '../../core/file-digest.js';
import { LeoError } from '../../core/leo-error.js';
import type { ConversationManifest } from '../../wire/conversation-pack.js';
import type { ConversationCarrier, ConversationPlace } from '../conversation.js';
import { repointRolloutWorkspace } from './rollout-workspace.js';
import { findCodexRollout, isRolloutName, locateCodexSessions, rolloutDay } from './sessions.js';

const HARNESS = 'codex';

const sessionsOf = (place: ConversationPlace) => locateCodexSessions(place.home.env, place.home.baseEnv);

const refused = (why: string) => new LeoError(400, `the packed conversation ${why}`, 'invalid');

export const codexConversation: ConversationCarrier = {
  async pack(place, sessionId) {
    const rollout = findCodexRollout(sessionsOf(place), sessionId);
    const manifest: ConversationManifest = {
      version: 1,
      harness: HARNESS,
      session_id: sessionId,
      workspace: place.workspace,
      files: [],
    };
    // A session never prompted has no rollout (Codex writes it with the first prompt): there is nothing to carry, and
    // the target's launch finds no session to resume and starts a new one.
    if (rollout === null) return manifest;
    const name = path.basename(rollout);
    const copy = path.join(place.dir, name);
    // Up to its last whole line: a copy's source keeps running, and Codex may be midway through a line.
    const bytes = await fs.promises.readFile(rollout);
    await fs.promises.writeFile(copy, bytes.subarray(0, bytes.lastIndexOf(0x0a) + 1), { mode: 0o600 });
    manifest.files.push({ path: name, ...(await fileDigest(copy)) });
    return manifest;
  },

  async unpack(place, manifest) {
    if (manifest.harness !== HARNESS) throw refused(`is ${manifest.harness}'s, not codex's`);
    const [file, ...more] = manifest.files;
    if (more.length > 0) throw refused('names more than one file; codex carries one rollout');
    if (file === undefined) return { sessionId: manifest.session_id };
    if (!isRolloutName(file.path, manifest.session_id))
      throw refused(`names ${file.path}, not the rollout of session ${manifest.session_id}`);
    // The name admits no separator nor `..`: it lands in the day folder it names, inside the sessions folder.
    const to = path.join(sessionsOf(place), ...rolloutDay(file.path), file.path);
    const text = await fs.promises.readFile(path.join(place.dir, file.path), 'utf8');
    await fs.promises.mkdir(path.dirname(to), { recursive: true, mode: 0o700 });
    // Written beside its place and renamed in: a codex listing its sessions meanwhile never reads half a rollout.
    const partial = `${to}.leo-partial`;
    try {
      await fs.promises.writeFile(partial, repointRolloutWorkspace(text, manifest.workspace, place.workspace), {
        mode: 0o600,
      });
      await fs.promises.rename(partial, to);
    } finally {
      await fs.promises.rm(partial, { force: true });
    }
    return { sessionId: manifest.session_id };
  },
};
