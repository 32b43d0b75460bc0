// The real Codex TUI (pinned 0.171.0) run by Leo against the scripted Responses API: a chat message sent once the
// pane shows Codex ready for input reaches the model as a typed prompt. Sending right after the spawn instead is
// issue 14 item 4: typed before Codex's TUI reads keys, the text lands in its composer but the Enter is lost, the
// message is marked delivered, and the next one is glued to it ("[Leo Chat] first…[Leo Chat] second…").
import { describe, it } from 'node:test';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { until } from '../helpers/wait.js';

describe('codex through Leo (real CLI)', () => {
  it(
    'a chat message sent once Codex is ready reaches the model as "[Leo Chat] <text>"',
    { timeout: 60_000 },
    async (t) => {
      const a = await startHarnessAgent(t, { harness: 'codex', agent: 'cx' });
      if (!a) return;
      const sent = await a.send('hello from the codex smoke test');
      await a.delivered(sent.id);
      await a.withPane(
        until(
          'the prompt to reach the model',
          () => a.prompts().some((p) => p.includes('[Leo Chat] hello from the codex smoke test')),
          20_000,
        ),
      );
    },
  );
});
