// The real Codex and opencode TUIs run by Leo against their scripted model servers, the way a new user meets them
// (issue 14 items 4 and 5): a first prompt given at spawn and a chat message sent the instant the spawn answers.
// Before Leo waited for the TUI, the text landed in Codex's composer with its Enter lost, was marked delivered, and the
// next message was glued to it; opencode dropped the text when it took over the screen, and the message failed after
// three Enter presses.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { until } from '../helpers/wait.js';

for (const harness of ['codex', 'opencode'] as const)
  describe(`${harness} first use (real CLI)`, () => {
    it(
      'the spawn prompt and a message sent at once both reach the model, each as its own prompt',
      { timeout: 150_000 },
      async (t) => {
        const a = await startHarnessAgent(t, {
          harness,
          agent: `${harness}-new`,
          prompt: 'first, from the spawn',
          waitForReady: false,
        });
        if (!a) return;
        const second = await a.send('second, sent at once');
        const done = (text: string) =>
          a.withPane(
            until(
              `"${text}" delivered`,
              async () => {
                const thread = await a.thread();
                const m = thread.find((x) => x.direction === 'in' && x.text === text);
                // Why it failed is the thread's last system note (the wire carries no note on the message itself).
                if (m?.state === 'failed')
                  throw new Error(`"${text}" failed: ${thread.filter((x) => x.kind === 'system').at(-1)?.text}`);
                return m?.state === 'delivered' ? m : undefined;
              },
              120_000,
              250,
            ),
          );
        await done('first, from the spawn');
        assert.equal((await done('second, sent at once')).id, second.id);
        await a.withPane(
          until('both prompts at the model', () => a.prompts().some((p) => p.includes('second, sent at once')), 30_000),
        );
        const ours = a.prompts().filter((p) => p.includes('[Leo Chat]'));
        assert.deepEqual(ours, ['[Leo Chat] first, from the spawn', '[Leo Chat] second, sent at once']);
      },
    );
  });
