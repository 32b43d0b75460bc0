// Codex as a Leo Chat citizen, end to end with the real Codex TUI in Leo's tmux against the scripted Responses API:
// Leo's hooks (given with -c, trusted for the session) capture the turn's reply into the thread, and a permission
// prompt for an escalated command is answered from chat or in Codex's own approval UI.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { request } from '../helpers/http.js';
import { functionCallOutput, userPrompts, type ResponsesServer } from '../helpers/responses-server.js';
import { until } from '../helpers/wait.js';

describe('codex replies (real CLI)', () => {
  it(
    'a message sent right after spawn gets its reply; a restart resumes the conversation SessionStart named',
    { timeout: 150_000 },
    async (t) => {
      const a = await startHarnessAgent(t, {
        harness: 'codex',
        agent: 'codex-reply',
        waitForReady: false,
        script: (req) => {
          const last = userPrompts(req.body).at(-1) ?? '';
          if (last.includes('and doubled?')) return { text: 'It is 84.' };
          return last.includes('what is 6 x 7') ? { text: 'It is 42.' } : undefined;
        },
      });
      if (!a) return;
      const sent = await a.send('what is 6 x 7');
      const reply = await a
        .withPane(
          until(
            'the reply in the thread',
            async () => (await a.thread()).find((m) => m.direction === 'out' && m.reply_to === sent.id),
            60_000,
            250,
          ),
        )
        .catch((err) => {
          const home = a.sandbox.env.CODEX_HOME!;
          for (const f of fs
            .readdirSync(home, { recursive: true })
            .map(String)
            .filter((f) => f.endsWith('.jsonl')))
            console.log(f, fs.readFileSync(path.join(home, f), 'utf8'));
          throw err;
        });
      assert.equal(reply.text, 'It is 42.');

      // SessionStart named the session: a restart resumes exactly it, and the next message continues the conversation.
      const home = a.sandbox.env.CODEX_HOME!;
      const rollout = fs
        .readdirSync(path.join(home, 'sessions'), { recursive: true })
        .map(String)
        .find((f) => f.endsWith('.jsonl'));
      const session = /-([0-9a-f-]{36})\.jsonl$/.exec(rollout ?? '')?.[1];
      assert.ok(session, rollout);
      const restarted = await request(a.d.tcp, 'POST', '/api/v1/agents/codex-reply/restart', { token: a.token });
      assert.equal(restarted.status, 200, restarted.text);
      const argv = await until(
        'the restarted codex',
        () => {
          const pid = a.panePid();
          if (!pid) return undefined;
          try {
            const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
            // Until it execs, the pane's process is the /bin/sh that sets PATH.
            return argv[0] === '/bin/sh' ? undefined : argv;
          } catch {
            return undefined;
          }
        },
        20_000,
        200,
      );
      assert.deepEqual(argv.slice(1, 3), ['resume', session]);
      await a.ready();
      const next = await a.send('and doubled?');
      const second = await a.withPane(
        until('the second reply', async () => (await a.thread()).find((m) => m.reply_to === next.id), 60_000, 250),
      );
      assert.equal(second.text, 'It is 84.');
      const turn = (a.server as ResponsesServer)
        .responseRequests()
        .find((r) => JSON.stringify(r.body.input).includes('and doubled?'));
      assert.ok(JSON.stringify(turn?.body.input).includes('[Leo Chat] what is 6 x 7'), 'the resumed conversation');
    },
  );

  it("a leo_chat_post that fails: the turn's closing words are the reply, once", { timeout: 120_000 }, async (t) => {
    const CALL_ID = 'call_blank_post';
    const a = await startHarnessAgent(t, {
      harness: 'codex',
      agent: 'codex-failed-post',
      script: (req) => {
        if (!userPrompts(req.body).some((p) => p.includes('post the status'))) return undefined;
        if (functionCallOutput(req.body, CALL_ID) !== undefined) return { text: 'The post failed; the status: green.' };
        // Blank text: Leo refuses the call (give text, files, or both), as it would a post while it is restarting.
        return {
          functionCall: { name: 'leo_chat_post', namespace: 'mcp__leo', callId: CALL_ID, arguments: { text: ' ' } },
        };
      },
    });
    if (!a) return;
    const sent = await a.send('post the status');
    const reply = await a.withPane(
      until(
        'the closing words in the thread',
        async () => (await a.thread()).find((m) => m.direction === 'out' && m.reply_to === sent.id),
        60_000,
        250,
      ),
    );
    assert.equal(reply.text, 'The post failed; the status: green.');
    const output = (a.server as ResponsesServer)
      .responseRequests()
      .map((r) => functionCallOutput(r.body, CALL_ID))
      .find((o) => o !== undefined);
    t.diagnostic(`what Codex handed the model for the refused call: ${output}`);
    assert.match(output ?? '', /give text, files, or both/, 'the call reached Leo and was refused');
    await sleep(2_000);
    const outs = (await a.thread()).filter((m) => m.direction === 'out' && m.kind !== 'system');
    assert.deepEqual(
      outs.map((m) => m.text),
      ['The post failed; the status: green.'],
      'nothing else posted',
    );
  });
});
