// The real opencode TUI (pinned 1.18.33) run by Leo against the scripted chat-completions server: a chat message
// sent once the pane shows opencode ready for input reaches the model as a typed prompt. Sending right after the
// spawn instead is issue 14 item 4: opencode draws nothing for its first seconds (3 s idle, over 20 s on a loaded
// machine), the terminal echoes the text and then opencode drops it, and the delivery fails with "the pane did not
// change after 3 Enter presses".
import { describe, it } from 'node:test';
import { startHarnessAgent } from '../helpers/harness-agent.js';
import { until } from '../helpers/wait.js';

describe('opencode through Leo (real CLI)', () => {
  it(
    'a chat message sent once opencode is ready reaches the model as "[Leo Chat] <text>"',
    { timeout: 90_000 },
    async (t) => {
      const a = await startHarnessAgent(t, { harness: 'opencode', agent: 'oc', waitForReady: false });
      if (!a) return;
      await a.ready(60_000);
      const sent = await a.send('hello from the opencode smoke test');
      await a.delivered(sent.id);
      await a.withPane(
        until(
          'the prompt to reach the model',
          () => a.prompts().some((p) => p.includes('[Leo Chat] hello from the opencode smoke test')),
          20_000,
        ),
      );
    },
  );
});
