// Codex as a Leo Chat citizen, end to end with the real Codex TUI in Leo's tmux against the scripted Responses API:
// Leo's hooks (given with -c, trusted for the session) capture the turn's reply into the thread, and a permission
// prompt for an escalated command is answered from chat or in Codex's own approval UI.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { until } from '../helpers/wait.js';

describe('codex replies (real CLI)', () => {
  it('a message sent right after spawn is delivered and its reply captured', { timeout: 120_000 }, async (t) => {
    const a = await startHarnessAgent(t, {
      harness: 'codex',
      agent: 'codex-reply',
      waitForReady: false,
      script: (req) => {
        const body = JSON.stringify(req.body.input);
        return body.includes('what is 6 x 7') ? { text: 'It is 42.' } : undefined;
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
  });
});
