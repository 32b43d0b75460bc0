// opencode replies end to end (issue 18): the real opencode TUI in Leo's tmux, its user's provider in their own global
// opencode.json, a workspace it has never seen. Leo's plugin (loaded through the config Leo hands opencode) reports
// the session and each turn's end; the daemon reads the transcript the plugin wrote and posts the turn's answer into
// the thread, with Claude's rules: a message sent right after the spawn is answered, and a turn that posted with
// leo_chat_post gets no second, captured reply.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChatMessage } from '../helpers/agent-views.js';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { request } from '../helpers/http.js';
import { lastUserText, type RecordedRequest, type ScriptedReply } from '../helpers/openai-server.js';
import { until } from '../helpers/wait.js';

const AGENT = 'oc-chat';
const PLAIN = 'Plain answer from opencode, captured by Leo.';
const POSTED = 'Posted through leo_chat_post.';
const AFTER_POST = 'Closing words after posting.';

/** opencode's own side request (the session's title) carries no tools; only the agent's turns do. */
const agentTurn = (req: RecordedRequest) => Array.isArray(req.body?.tools) && req.body.tools.length > 0;
const lastMessage = (req: RecordedRequest) => (req.body?.messages as any[]).at(-1);

function script(req: RecordedRequest): ScriptedReply | undefined {
  if (!agentTurn(req)) return { text: 'A title' };
  if (lastMessage(req)?.role === 'tool') return { text: AFTER_POST };
  const prompt = lastUserText(req.body) ?? '';
  if (prompt.includes('REPLY-PLAIN')) return { text: PLAIN };
  if (prompt.includes('REPLY-POSTED'))
    return { text: 'Posting it.', toolCalls: [{ name: 'leo_leo_chat_post', arguments: { text: POSTED } }] };
  return undefined;
}

const outbound = (thread: ChatMessage[]) => thread.filter((m) => m.direction === 'out' && m.kind === 'text');

describe('opencode replies (real CLI)', () => {
  it(
    'a message sent right after spawn gets its turn posted as the reply; a turn that posted gets no second one',
    { timeout: 240_000 },
    async (t) => {
      const started = Date.now();
      const a = await startHarnessAgent(t, { harness: 'opencode', agent: AGENT, script, waitForReady: false });
      if (!a) return;
      const first = await a.send('REPLY-PLAIN: what do you say?');
      // Leo holds it until the TUI takes input: about 3 s after launch, but a first start with any plugin (Leo's)
      // waits for opencode's install of @opencode-ai/plugin into the user's config folder (docs/harnesses/opencode.md).
      await a.withPane(
        until(
          'the first message delivered',
          async () => {
            const m = (await a.thread()).find((x) => x.id === first.id);
            assert.notEqual(m?.state, 'failed');
            return m?.state === 'delivered';
          },
          150_000,
        ),
      );
      const reply = await a.withPane(
        until(
          'the captured reply',
          async () => outbound(await a.thread()).find((m) => m.reply_to === first.id),
          45_000,
        ),
      );
      assert.equal(reply.text, PLAIN);
      // The plugin's stop carried the turn's usage (the scripted server's counts): the agent's total has it.
      const usage = await until(
        "the turn's usage",
        async () => {
          const r = await request(a.d.tcp, 'GET', `/api/v1/agents/${AGENT}/usage?days=1`, {
            token: a.d.daemon.operatorToken,
          });
          return r.json.data.totals.turns >= 1 ? r.json.data.totals : undefined;
        },
        10_000,
      );
      assert.ok(usage.input_tokens > 0 && usage.output_tokens > 0, JSON.stringify(usage));

      // The plugin reported the session at its start: a restart resumes exactly it, and its transcript is Leo's.
      const sessions = path.join(a.d.home, 'state', 'agents', AGENT, 'opencode-sessions');
      const files = fs.readdirSync(sessions).filter((f) => f.endsWith('.jsonl'));
      assert.equal(files.length, 1, `one session transcript: ${files.join(', ')}`);
      const noted = a.d.daemon.db.prepare('SELECT session_id FROM agents WHERE name = ?').pluck().get(AGENT);
      assert.equal(`${noted}.jsonl`, files[0], 'the session a restart resumes (opencode --session)');

      const second = await a.send('REPLY-POSTED: post it yourself');
      await a.withPane(a.delivered(second.id));
      await a.withPane(until('the closing words on screen', () => a.pane().includes(AFTER_POST), 45_000, 250));
      const posted = await until(
        'the post',
        async () => outbound(await a.thread()).find((m) => m.text === POSTED),
        10_000,
      );
      assert.equal(posted.reply_to, undefined);
      // The turn's end has been reported once the transcript holds its closing words; give the capture a moment.
      await until(
        'the second turn in the transcript',
        () => fs.readFileSync(path.join(sessions, files[0]!), 'utf8').includes(AFTER_POST),
        10_000,
      );
      await sleep(1500);
      const thread = await a.thread();
      assert.deepEqual(
        outbound(thread).map((m) => m.text),
        [PLAIN, POSTED],
        'the posting turn got no captured reply',
      );
      t.diagnostic(`ran in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
  );
});
