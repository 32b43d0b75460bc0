// Claude's workspace-trust question, answered by Leo itself with the real claude in tmux. Leo marks its workspaces
// trusted before each start, but a Claude already running for another agent can write its older config back over the
// mark; then the question shows ("No, exit" highlighted), and a landing CI once saw Down and Enter, pressed 150 ms
// apart, read by the busy TUI as one chunk: Enter on "No, exit", and the agent gone. Leo now presses a key per look
// and Enter only on a screen whose highlight is on "Yes, I trust this folder".
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { watchStartup } from '../../src/delivery/agent-terminal.js';
import { readClaudeScreen } from '../../src/harnesses/claude/screen.js';
import { sessionName } from '../../src/tmux/session-name.js';
import { AnthropicServer } from '../helpers/anthropic-server.js';
import { claudeSandbox, findClaude } from '../helpers/claude-cli.js';
import { until } from '../helpers/wait.js';
import { privateTmux } from '../tmux/real-tmux.js';

describe("Claude's trust question, answered by Leo", () => {
  it('a workspace its config has never seen: the highlight moved to Yes, then Enter, and Claude at its prompt', async (t) => {
    const claude = await findClaude();
    if ('missing' in claude) return t.skip(claude.missing);
    const api = await AnthropicServer.start({ script: () => ({ text: 'ok' }) });
    const user = claudeSandbox({ baseUrl: api.url });
    user.seedAsUser();
    const { tmux, cleanup } = privateTmux();
    t.after(async () => {
      await cleanup();
      await api.close();
      user.cleanup();
    });
    const workspace = fs.realpathSync(fs.mkdtempSync(path.join(user.dir, 'workspace-')));
    const session = sessionName('newcomer');
    await tmux.newSession({
      name: session,
      cwd: workspace,
      command: [claude.bin],
      env: user.env,
      width: 120,
      height: 40,
    });
    const screens: string[] = [];
    const stopped: Error[] = [];
    // As the daemon does at each launch: the watch starts with the program, while it is still drawing.
    watchStartup(
      {
        capturePane: async (s, n) => {
          const pane = await tmux.capturePane(s, n);
          screens.push(pane);
          return pane;
        },
        sendKeys: (s, keys) => tmux.sendKeys(s, keys),
      },
      'newcomer',
      readClaudeScreen,
      (err) => void stopped.push(err),
    );
    const pane = () => tmux.capturePane(session, 0);
    await until('Claude at its prompt', async () => readClaudeScreen(await pane()).kind === 'input', 30_000, 200).catch(
      async (err) => assert.fail(`${(err as Error).message}; the pane:\n${await pane()}`),
    );
    assert.ok(
      screens.some((s) => s.includes('Is this a project you created or one you trust?')),
      'the trust question showed',
    );
    const config = JSON.parse(fs.readFileSync(path.join(user.configDir, '.claude.json'), 'utf8'));
    assert.equal(config.projects[workspace]?.hasTrustDialogAccepted, true, 'Claude recorded the trust');
    assert.deepEqual(stopped, []);
  });
});
