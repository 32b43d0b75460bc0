import { describe, it } from 'node:test';
import { isAgentTurn, lastUserMessage, mentions } from '../helpers/anthropic-server.js';
import { startClaudeAgent } from '../helpers/claude-agent.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('explore', () => {
  it('interrupt then resend', { timeout: 120_000 }, async (t) => {
    const TEXT = 'Count the moons, marker LEO-9';
    let seen = 0;
    const c = await startClaudeAgent(t, {
      agent: 'claude-replies-9',
      script: (req, { sideRequest }) => {
        if (sideRequest) return undefined;
        if (!mentions(lastUserMessage(req.body), 'LEO-9')) return undefined;
        seen++;
        return seen === 1
          ? { text: 'Let me count them one by one, slowly.', hold: new Promise(() => {}) }
          : { text: 'Two moons.' };
      },
    });
    if (!c) return;
    const first = await c.send(TEXT);
    await c.delivered(first.id);
    await c.api.waitForRequest(
      (r) => r.body?.stream === true && isAgentTurn(r.body) && mentions(lastUserMessage(r.body), 'LEO-9'),
      15_000,
    );
    await sleep(6000);
    c.tmux('send-keys', '-t', '=leo-claude-replies-9:', 'Escape');
    await sleep(3000);
    console.log('PANE1', c.pane());
    const second = await c.send(TEXT);
    await c.delivered(second.id);
    await sleep(8000);
    console.log('PANE2', c.pane());
    console.log(JSON.stringify(await c.thread(), null, 1));
    for (const l of c.transcriptLines('"'))
      if (['user', 'assistant', 'system'].includes(l.type) || l.attachment?.type === 'queued_command')
        console.log(
          JSON.stringify({
            type: l.type,
            sub: l.subtype,
            c: l.message?.content,
            ts: l.timestamp,
            pid: l.promptId,
            tp: l.turnPosition,
            int: l.interruptedMessageId,
            att: l.attachment?.type,
          }).slice(0, 400),
        );
  });
});
