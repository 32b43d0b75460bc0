// A real Claude Code agent's conversation carried to another machine (issue 32): packed from its Claude config dir on
// one daemon, unpacked into another config dir under a different workspace path, and resumed there the way a restart
// resumes (Leo's launch plan with `--resume <id>`): the scripted model finds the earlier turn in its next request.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { realExec } from '../../src/core/exec.js';
import type { ConversationPlace } from '../../src/harnesses/conversation.js';
import { projectFolderName } from '../../src/harnesses/claude/conversations.js';
import { HARNESSES } from '../../src/harnesses/index.js';
import { startClaudeAgent, type ClaudeAgent } from '../helpers/claude-agent.js';
import { request } from '../helpers/http.js';
import { secretWordConversation } from '../helpers/secret-word.js';
import { until } from '../helpers/wait.js';

const AGENT = 'traveller';
const SECRET = 'PAPAYA-7319';
const { first: FIRST, second: SECOND, remembered: REMEMBERED, script, secondTurn } = secretWordConversation(SECRET);

const carrier = HARNESSES.claude.conversation!;

function placeOf(c: ClaudeAgent, dir: string): ConversationPlace {
  return {
    home: { env: c.sandbox.env, baseEnv: process.env },
    workspace: path.join(c.sandbox.dir, 'workspace'),
    dir,
    exec: realExec,
  };
}

const sessionOf = (c: ClaudeAgent): string | null =>
  c.d.daemon.db.prepare('SELECT session_id FROM agents WHERE name = ?').pluck().get(AGENT) as string | null;

async function replyTo(c: ClaudeAgent, text: string): Promise<string> {
  const sent = await c.send(text);
  await c.delivered(sent.id);
  const reply = await c.withPane(
    until('the reply', async () => (await c.thread()).find((m) => m.reply_to === sent.id && m.kind === 'text'), 20_000),
  );
  return reply.text;
}

describe('a real Claude agent’s conversation moved to another host', () => {
  it(
    'resumes there under another workspace path with the earlier turn in the model’s request',
    { timeout: 120_000 },
    async (t) => {
      // Two hosts, each its own daemon, Claude config dir and workspace path, started side by side; the target's
      // agent of that name starts fresh, as a move's spawn does before the conversation is put in.
      const [source, target] = await Promise.all([
        startClaudeAgent(t, { agent: AGENT, script }),
        startClaudeAgent(t, { agent: AGENT, script }),
      ]);
      if (!source || !target) return;
      assert.equal(await replyTo(source, FIRST), `The secret word is ${SECRET}.`);
      const sessionId = sessionOf(source);
      assert.ok(sessionId, 'SessionStart recorded the session id');
      // Parked first, as a move does: Claude writes nothing more to the transcript while it is packed.
      const stopped = await request(source.d.tcp, 'POST', `/api/v1/agents/${AGENT}/stop`, { token: source.token });
      assert.equal(stopped.status, 200, stopped.text);
      const packDir = path.join(source.sandbox.dir, 'pack');
      const manifest = await carrier.pack(placeOf(source, packDir), sessionId);
      assert.equal(manifest.files[0]?.path, 'transcript.jsonl');

      const place = placeOf(target, packDir);
      assert.notEqual(place.workspace, manifest.workspace);
      const { sessionId: resumeId } = await carrier.unpack(place, manifest);
      assert.equal(resumeId, sessionId, 'an id the target has never seen is kept');
      target.d.daemon.db.prepare('UPDATE agents SET session_id = ? WHERE name = ?').run(resumeId, AGENT);
      const restarted = await request(target.d.tcp, 'POST', `/api/v1/agents/${AGENT}/restart`, { token: target.token });
      assert.equal(restarted.status, 200, restarted.text);
      // Claude shows a resumed conversation's turns on screen.
      await target.withPane(until('the resumed conversation on screen', () => target.pane().includes(SECRET), 30_000));

      assert.equal(await replyTo(target, SECOND), REMEMBERED);
      const turn = secondTurn(target.api);
      assert.ok(JSON.stringify(turn.body.messages).includes(FIRST), 'the first prompt is in the resumed request');
      // Claude went on in the transcript Leo put in the folder named from the target's workspace, under the same id.
      assert.equal(sessionOf(target), sessionId);
      const folder = projectFolderName(fs.realpathSync(place.workspace));
      const transcript = path.join(target.sandbox.configDir, 'projects', folder, `${sessionId}.jsonl`);
      assert.ok(fs.readFileSync(transcript, 'utf8').includes(SECOND));
    },
  );
});
