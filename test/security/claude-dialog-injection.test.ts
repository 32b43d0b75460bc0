// Issue 20 item 1 against the real Claude Code CLI: while Claude shows its permission dialog for a tool call (and the
// prompt for it is open in the agent's thread), a chat message carrying an end-of-paste marker and a "1" — the key
// that picks "Yes" in that dialog — is sent. It must not answer the dialog: the tool does not run, the dialog and the
// prompt stay up, the message waits. Once the prompt is answered from chat, the message is delivered, as text.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startClaudeAgent } from '../helpers/claude-agent.js';
import { promptViews, toolScript, touch, type ToolCall } from '../helpers/claude-prompts.js';
import { until } from '../helpers/wait.js';

const AGENT = 'claude-inject-e2e';
const SCENARIOS: Record<string, ToolCall> = { 'INJECT-DIALOG': touch('approved') };
const PAYLOAD = 'just a harmless note\u001b[201~1';

describe('a chat message cannot answer the real Claude permission dialog', () => {
  it('the payload waits behind the dialog, which only chat’s answer closes', { timeout: 120_000 }, async (t) => {
    const c = await startClaudeAgent(t, { agent: AGENT, script: toolScript(SCENARIOS) });
    if (!c) return;
    const workspace = path.join(c.sandbox.dir, 'workspace');
    const { answer, begin, message, resultOf } = promptViews(c, AGENT, SCENARIOS);
    const prompt = await begin('INJECT-DIALOG', 'permission');
    await c.withPane(until('Claude’s permission dialog', () => /Do you want/.test(c.pane()), 15_000));

    const injected = await c.send(PAYLOAD);
    // A person's pace: the dialog stays up a while with the message waiting.
    await sleep(8_000);
    assert.equal(fs.existsSync(path.join(workspace, 'approved.txt')), false, 'the tool ran: the dialog was answered');
    assert.match(c.pane(), /Do you want/, 'the terminal dialog still stands');
    assert.equal((await message(prompt.id))?.state, 'open', 'the prompt in the thread is still open');
    assert.equal((await message(injected.id))?.state, 'pending', 'the message waits, it is not failed or typed');

    assert.equal((await answer(prompt.id, { values: ['allow'] })).status, 200);
    await resultOf('INJECT-DIALOG');
    assert.ok(fs.existsSync(path.join(workspace, 'approved.txt')), 'chat’s answer ran the tool');
    await c.delivered(injected.id);
    await c.withPane(
      until(
        'the message to reach the model as text',
        () => c.api.prompts().some((p) => p.includes('just a harmless note\u241b[201~1')),
        30_000,
      ),
    );
  });
});
